// An internationalised zone named in any form, end to end: signed slash commands as Slack escapes
// them (the IDN linked by its punycode), the real app, the sandbox CDN holding the zone in
// punycode; every answer shows it as `bücher.example (xn--bcher-kva.example)`.
import { describe, expect, it } from 'vitest';
import { ZONE_PICKER_IDS } from '../../src/blocks/ids.js';
import { commandReply } from './flows.js';
import { MEMBER, startHarness, textOf } from './harness.js';

const IDN = 'xn--bcher-kva.example';
const SHOWN = 'bücher.example (xn--bcher-kva.example)';

async function withIdnZone() {
  const h = await startHarness();
  const zone = h.sandbox.state.create(IDN, 'free');
  h.sandbox.state.activate(zone.id);
  await h.login();
  return { h, zone };
}

describe('an internationalised zone', () => {
  it('is purged by its Unicode name and a Unicode URL, and the result names it in both forms', async () => {
    const { h, zone } = await withIdnZone();
    await h.command('purge bücher.example https://bücher.example/a.css');
    const [purged] = await h.slack.waitForMessages((m) => m.text?.startsWith('Purged') ?? false);
    expect(textOf(purged?.blocks)).toContain(`<@${MEMBER}> purged 1 URL on *${SHOWN}*`);
    expect(purged?.text).toContain(SHOWN);
    const purges = h.sandbox.requests.filter((r) => r.path.endsWith('/purge'));
    expect(purges.map((r) => [r.path, r.body])).toEqual([
      [`/zones/${zone.id}/purge`, { files: [`https://${IDN}/a.css`] }],
    ]);
  });

  it('is listed by part of its Unicode name, and offered by the pickers', async () => {
    const { h, zone } = await withIdnZone();
    const list = await commandReply(h, 'zones bücher');
    expect(textOf(list.blocks)).toContain('1 zone matching “bücher” · page 1 of 1');
    expect(textOf(list.blocks)).toContain(`*${SHOWN}*`);
    expect(textOf(list.blocks)).not.toContain('example.com');

    const offered = JSON.parse((await h.suggest(ZONE_PICKER_IDS.action, 'büch')).body) as {
      options: Array<{ text: { text: string }; value: string }>;
    };
    expect(offered.options).toEqual([
      { text: { type: 'plain_text', text: `${SHOWN} (active)`, emoji: true }, value: zone.id },
    ]);
  });

  it('has its rate limit turned on by its punycode name', async () => {
    const { h } = await withIdnZone();
    await h.command(`ratelimit ${IDN.toUpperCase()} on`);
    // A bot message in the channel, so that it can be edited once the change is everywhere.
    const [answer] = await h.slack.waitForMessages((m) => m.via === 'api');
    expect(answer?.text).toContain(`Rate limiting on for ${SHOWN}`);
    expect(textOf(answer?.blocks)).toContain(`turned rate limiting *on* for *${SHOWN}*`);
    expect(h.sandbox.state.byName(IDN)?.limits.enabled).toBe(true);
  });

  it('is watched, unwatched and made the default by its Unicode name, in any case, with a trailing dot', async () => {
    const { h } = await withIdnZone();
    const watching = await commandReply(h, 'watch bücher.example requests>50k/5m');
    expect(textOf(watching.blocks)).toContain(`now watches *${SHOWN}*`);
    const bound = await commandReply(h, 'use Bücher.Example.');
    expect(textOf(bound.blocks)).toContain(`made *${SHOWN}* this channel's default zone`);
    const shown = await commandReply(h, 'use');
    expect(textOf(shown.blocks)).toContain(`This channel's default zone is *${SHOWN}*`);
    const unwatched = await commandReply(h, 'unwatch BÜCHER.EXAMPLE');
    expect(textOf(unwatched.blocks)).toContain(`no longer watches *${SHOWN}*`);
  });

  it('is not confused with a missing one: a typo is answered with the IDN in both forms', async () => {
    const { h } = await withIdnZone();
    const answer = await commandReply(h, 'ratelimit büchr.example on');
    expect(textOf(answer.blocks)).toContain('No zone `büchr.example` in this workspace.');
    expect(textOf(answer.blocks)).toContain(`Did you mean \`${SHOWN}\`?`);
  });
});
