// Item 6 of issue 26: help, usage and error texts that show `<zone>`, `requests>50k` or
// `hitrate<80%` must reach Slack escaped once, so Slack shows them as written (read back here
// through the console's mrkdwn renderer, a stand-in for Slack's).
import { describe, expect, it } from 'vitest';
import { channelDefaultMessage } from '../../src/blocks/channels.js';
import { noticeMessage } from '../../src/blocks/errors.js';
import { helpMessage } from '../../src/blocks/help.js';
import { problemText } from '../../src/blocks/problems.js';
import { watchListMessage } from '../../src/blocks/watches.js';
import { mrkdwnToText } from '../../src/dev/console/render.js';
import { HELP_ENTRIES } from '../../src/listeners/commands/registry.js';
import { mrkdwnOf } from '../helpers/mrkdwn.js';

/** What a Slack reader sees of a message's text and blocks. */
const shown = (value: unknown) =>
  mrkdwnOf(value)
    .map((text) => mrkdwnToText(text))
    .join('\n');
const textOf = (value: unknown) =>
  typeof value === 'string' ? value : (value as { text: string }).text;

describe('mrkdwn control characters in what the bot writes', () => {
  it('a usage sent as a notice shows <zone> as written, with no raw < or >', () => {
    const message = noticeMessage('Usage: `/cdn unwatch <zone>`');
    expect(mrkdwnToText(message.text)).toBe('Usage: `/cdn unwatch <zone>`');
    expect(JSON.stringify(message)).not.toContain('<zone>');
  });

  it('help shows every usage as written', () => {
    const help = shown(helpMessage(HELP_ENTRIES));
    for (const entry of HELP_ENTRIES) expect(help).toContain(entry.usage);
  });

  it('the hints in lists and refusals show <zone>, <tag>, requests>50k and hitrate<80%', () => {
    expect(shown(watchListMessage({ watches: [], keySet: true }))).toContain(
      '/cdn watch <zone> [requests>50k/5m] [hitrate<80%]',
    );
    expect(shown(channelDefaultMessage({ kind: 'none' }))).toContain('`/cdn purge tag:<tag>…`');
    const refusal = textOf(problemText({ code: 'no_zone_named', command: 'purge' }));
    expect(refusal).not.toMatch(/<zone>/);
    expect(mrkdwnToText(refusal)).toContain('`/cdn purge <zone> /path…`');
  });
});
