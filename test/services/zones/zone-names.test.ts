// Every place a zone is named, with an IDN typed in each of its forms: the command text as Slack
// delivers it (fake Slack's escaping), each subcommand's parser, then the service it calls, over
// the real services, the CDN sandbox on loopback and a real SQLite store (the e2e harness's).
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/commands/parse.js';
import { escapeTyped } from '../../../src/dev/fake-slack/escape.js';
import { parseZonesArgs } from '../../../src/listeners/commands/zones.js';
import type { Caller } from '../../../src/services/access/access.js';
import { parseAnalyticsArgs } from '../../../src/services/analytics/analytics.js';
import { parsePurgeArgs } from '../../../src/services/purge/purge-targets.js';
import { parseRateLimitArgs } from '../../../src/services/zones/ratelimit.js';
import { CHANNEL, type Harness, MEMBER, startHarness } from '../../e2e/harness.js';

const IDN = 'xn--bcher-kva.example';
/** The forms a person may type it in. */
const FORMS = [
  'bücher.example',
  'xn--bcher-kva.example',
  'Bücher.Example.',
  'XN--BCHER-KVA.EXAMPLE',
  'BÜCHER.EXAMPLE',
];

/** The words after the subcommand, as the listener reads them from what Slack delivered. */
const argsOf = (h: Harness, text: string) => parseCommand(escapeTyped(text, h.slack)).args;

const callerOf = (h: Harness): Caller => ({
  workspaceId: h.workspaceId,
  userId: MEMBER,
  directory: {
    user: async () => ({ isAdmin: false, timeZone: 'Europe/Paris' }),
    groupMembers: async () => [],
    inConversation: async () => true,
  },
});

/** Each subcommand that names a zone: its text, and the id of the zone its service acted on. */
const SUBCOMMANDS: Array<
  [string, (zone: string) => string, (h: Harness, args: string[]) => Promise<string>]
> = [
  [
    'purge <zone> <url>',
    (zone) => `purge ${zone} https://bücher.example/a.css`,
    async (h, args) => {
      const parsed = parsePurgeArgs(args);
      if (parsed.kind !== 'items') throw new Error(`not items: ${parsed.kind}`);
      const plan = await h.deps.purges.plan(callerOf(h), 'C1', parsed);
      expect(plan.rejected).toEqual([]);
      expect(plan.groups[0]?.files).toEqual([`https://${IDN}/a.css`]);
      return plan.groups[0]?.zone.id ?? '';
    },
  ],
  [
    'purge <zone> /path',
    (zone) => `purge ${zone} /a.css`,
    async (h, args) => {
      const parsed = parsePurgeArgs(args);
      if (parsed.kind !== 'items') throw new Error(`not items: ${parsed.kind}`);
      const plan = await h.deps.purges.plan(callerOf(h), 'C1', parsed);
      expect(plan.groups[0]?.files).toEqual([`https://${IDN}/a.css`]);
      return plan.groups[0]?.zone.id ?? '';
    },
  ],
  [
    'ratelimit',
    (zone) => `ratelimit ${zone}`,
    async (h, args) =>
      (await h.deps.ratelimit.state(callerOf(h), parseRateLimitArgs(args)?.zone ?? '')).zone.id,
  ],
  [
    'analytics',
    (zone) => `analytics ${zone} 7d`,
    async (h, args) => {
      const parsed = parseAnalyticsArgs(args);
      if (!parsed.ok) throw new Error('not parsed');
      return (await h.deps.channels.choose(h.workspaceId, CHANNEL, parsed.zone, 'analytics')).zone
        .id;
    },
  ],
  [
    'watch',
    (zone) => `watch ${zone} requests>50k/5m`,
    async (h, [zone = '', ...thresholds]) =>
      (await h.deps.watches.watch(callerOf(h), { zone, channelId: CHANNEL, thresholds })).watch
        .zoneId,
  ],
  [
    'unwatch',
    (zone) => `unwatch ${zone}`,
    async (h, [zone = '']) =>
      (await h.deps.watches.unwatch(callerOf(h), { zone, channelId: CHANNEL })).zoneId,
  ],
  [
    'report',
    (zone) => `report ${zone} daily 09:00`,
    async (h, [zone = '']) =>
      (
        await h.deps.schedules.create(callerOf(h), {
          zone,
          channelId: CHANNEL,
          timeOfDay: '09:00',
        })
      ).schedule.zoneId,
  ],
  [
    'use',
    (zone) => `use ${zone}`,
    async (h, [zone = '']) => (await h.deps.channels.bind(callerOf(h), CHANNEL, zone)).id,
  ],
  [
    'audit',
    (zone) => `audit ${zone}`,
    async (h, [zone = '']) => {
      const entries = await h.deps.activity.recent(callerOf(h), { zone, limit: 20 });
      expect(entries.length).toBeGreaterThan(0);
      return entries[0]?.zoneId ?? '';
    },
  ],
  [
    'zones <name>',
    (zone) => `zones ${zone}`,
    async (h, args) => {
      const parsed = parseZonesArgs(args);
      if (!parsed) throw new Error('not parsed');
      const page = await h.deps.zones.page(callerOf(h), parsed, await h.loginAccountId());
      expect(page.total).toBe(1);
      return page.zones[0]?.id ?? '';
    },
  ],
  [
    'zone picker',
    (zone) => `picker ${zone}`,
    async (h, [query = '']) => {
      const [first] = await h.deps.zones.search(
        h.workspaceId,
        query,
        100,
        await h.loginAccountId(),
      );
      return first?.id ?? '';
    },
  ],
];

describe('a zone named in any form', () => {
  it('is the same zone for every subcommand, in Unicode or punycode, any case, with a trailing dot', async () => {
    const h = await startHarness();
    const zone = h.sandbox.state.create(IDN, 'free');
    h.sandbox.state.activate(zone.id);
    // Another IDN, close by: the right one must be chosen, not the first.
    h.sandbox.state.create('xn--mnchen-3ya.example', 'free');
    await h.login();
    const failures: string[] = [];
    for (const form of FORMS) {
      for (const [name, text, run] of SUBCOMMANDS) {
        const got = await run(h, argsOf(h, text(form)))
          .then((id) => (id === zone.id ? undefined : `acted on ${id}`))
          .catch((error: unknown) => String(error));
        if (got) failures.push(`${name} with ${form}: ${got}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it.each([
    ['büch', true],
    ['BÜCHER', true],
    ['xn--bcher', true],
    ['ücher.exa', true],
    ['münch', false],
  ])(
    'is offered by the pickers and /cdn zones for part of its name, %j: %s',
    async (part, found) => {
      const h = await startHarness();
      const zone = h.sandbox.state.create(IDN, 'free');
      h.sandbox.state.create('xn--mnchen-3ya.example', 'free');
      await h.login();
      const account = await h.loginAccountId();
      const picked = (await h.deps.zones.search(h.workspaceId, part, 100, account)).map(
        (z) => z.id,
      );
      const listed = (
        await h.deps.zones.page(callerOf(h), { name: part, page: 1 }, account)
      ).zones.map((z) => z.id);
      expect(picked.includes(zone.id)).toBe(found);
      expect(listed.includes(zone.id)).toBe(found);
    },
  );
});
