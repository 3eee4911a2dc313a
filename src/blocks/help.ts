// /cdn help, and the answer to an unknown subcommand.
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain } from './text.js';

/** What help shows of a subcommand (the list itself lives in src/commands/registry.ts). */
export interface SubcommandInfo {
  name: string;
  usage: string;
  summary: string;
  /** Who may run it, as shown in help; everyone when absent. */
  audience?: 'admins' | 'operators';
}

export function helpMessage(
  subcommands: readonly SubcommandInfo[],
  options: { unknown?: string; suggestion?: string } = {},
): Message {
  const lines = subcommands.map(
    (sub) => `${code(sub.usage)}${sub.audience ? ` _(${sub.audience})_` : ''}\n${sub.summary}`,
  );
  const intro =
    options.unknown === undefined
      ? 'Run your CDN from Slack. Zones are named by their domain or their id.'
      : `I don't know ${code(options.unknown)}.${options.suggestion ? ` Did you mean ${code(`/cdn ${options.suggestion}`)}?` : ''}`;
  return {
    text:
      options.unknown === undefined
        ? 'CDN commands'
        : `Unknown command: ${escapeMrkdwn(options.unknown)}`,
    blocks: [
      { type: 'header', text: plain('CDN commands') },
      { type: 'section', text: mrkdwn(intro) },
      { type: 'section', text: mrkdwn(lines.join('\n\n')) },
      {
        type: 'context',
        elements: [
          mrkdwn(
            'Reading is open to everyone; changes may be limited to operators. Guests only read unless an admin allows more (`/cdn config guests operate`), and never approve; people from other workspaces only read.',
          ),
        ],
      },
    ],
  };
}
