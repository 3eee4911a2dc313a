// /cdn help, and the answer to an unknown subcommand.
import { listBlocks } from './fit.js';
import { type Message, message } from './message.js';
import { code, type Mrkdwn, md, mrkdwn, plain } from './text.js';

/** What help shows of a subcommand (the list itself lives in src/listeners/commands/registry.ts). */
export interface SubcommandInfo {
  name: string;
  /** Literal text, as typed: `<zone>` is shown as is. */
  usage: string;
  /** Literal text, but `backticks` mark inline code. */
  summary: string;
  /** Who may run it, as shown in help; everyone when absent. */
  audience?: 'admins' | 'operators';
}

/** How many subcommands a message shows (each is a section). */
const SHOWN = 40;

/** A subcommand's usage as inline code, and who may run it. */
export function usageLine(sub: SubcommandInfo): Mrkdwn {
  return md`${code(sub.usage)}${sub.audience ? md` _(${sub.audience})_` : ''}`;
}

/** A typo of a subcommand: one line naming the one meant, not the whole help. */
export function unknownSubcommandMessage(unknown: string, suggestion: string): Message {
  const said = md`Unknown subcommand ${code(unknown)}. Did you mean ${code(`/cdn ${suggestion}`)}? ${code('/cdn help')} lists them all.`;
  return message(said, [{ type: 'section', text: mrkdwn(said) }]);
}

/** /cdn help; with `unknown`, the answer to a word like no subcommand at all. */
export function helpMessage(
  subcommands: readonly SubcommandInfo[],
  options: { unknown?: string } = {},
): Message {
  const intro =
    options.unknown === undefined
      ? md`Run your CDN from Slack. Zones are named by their domain or their id.`
      : md`I don't know ${code(options.unknown)}.`;
  return message(
    options.unknown === undefined ? md`CDN commands` : md`Unknown command: ${options.unknown}`,
    [
      { type: 'header', text: plain('CDN commands') },
      { type: 'section', text: mrkdwn(intro) },
      ...listBlocks(subcommands, SHOWN, (sub) => ({
        type: 'section',
        text: mrkdwn(md`${usageLine(sub)}\n${sub.summary}`),
      })),
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`Reading is open to everyone; changes may be limited to operators. Guests only read unless an admin allows more (\`/cdn config guests operate\`), and never approve; people from other workspaces only read.`,
          ),
        ],
      },
    ],
  );
}
