// Operators per CDN account for every change, not purges alone, over the signed HTTP receiver: with
// `staging` held to @stg-ops (ADMIN) and the workspace to no group, MEMBER is refused each change
// to staging's zones or to staging (rate limit, create, an alert's buttons, watches, reports, a
// channel's binding, verify) and nothing reaches staging's CDN; ADMIN, in the group, makes it; and
// MEMBER still changes `default`'s zones, `default` following the workspace's operators.
import { describe, expect, it, vi } from 'vitest';
import {
  CREATE_IDS,
  HOME_IDS,
  RATELIMIT_IDS,
  VERIFY_IDS,
  WATCH_IDS,
} from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import type { Sandbox } from '../../src/dev/sandbox/server.js';
import { ask, purges, twoAccounts } from './account-flows.js';
import { alerts, answerTo, interval, openHome } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, textOf, viewIdOf } from './harness.js';

const ZONE = 'shop.example.org';
const MINUTE = 60_000;
/** How every refusal of staging's changes begins, whatever the change. */
const REFUSED = "Only members of the CDN account *staging*'s operators group can";

type Requests = Array<{ method: string; path: string }>;
const posts = (requests: Requests) => requests.filter((r) => r.method === 'POST');

interface Setup {
  h: Harness;
  staging: Sandbox;
}

/**
 * Two accounts; `before` runs first (a form opened while anyone could), then an admin holds
 * `staging` to @stg-ops, ADMIN its only member.
 */
async function stagingHeld<T>(before?: (setup: Setup) => Promise<T>): Promise<Setup & { was: T }> {
  const setup = await twoAccounts([], { slack: { fileReadyMs: 0 } });
  const was = (await before?.(setup)) as T;
  setup.h.slack.addUsergroup('S0STG', 'stg-ops', [ADMIN]);
  const reply = await ask(setup.h, 'config operators @stg-ops account:staging', ADMIN);
  expect(textOf(reply.blocks)).toContain('<!subteam^S0STG>');
  return { ...setup, was };
}

/** The answer to `/cdn <text>` run by MEMBER, which must be staging's refusal. */
async function refusedCommand(h: Harness, text: string): Promise<void> {
  const reply = await ask(h, text, MEMBER);
  expect(textOf(reply.text), text).toContain(REFUSED);
}

/** MEMBER's click on `button` of `message`, which must be answered with staging's refusal. */
async function refusedClick(h: Harness, message: Message, button: string): Promise<void> {
  const answer = await answerTo(h, MEMBER, () => h.click(message, button, { user: MEMBER }));
  expect(textOf(answer), button).toContain(REFUSED);
}

/** staging's zone of that name (the sandbox's live state). */
function zoneIn(sandbox: Sandbox, name = ZONE) {
  const zone = sandbox.state.byName(name);
  if (!zone) throw new Error(`no zone ${name}`);
  return zone;
}

/** ADMIN watches staging's zone, which then spikes: the alert that fired. */
async function stagingAlert({ h, staging }: Setup): Promise<Message> {
  expect((await ask(h, `watch staging/${ZONE}`, ADMIN)).text).toContain('Watching');
  await interval(h, 2);
  const from = Math.ceil(h.clock.now() / MINUTE) * MINUTE - MINUTE;
  staging.state.shape(zoneIn(staging).id, { kind: 'spike', from, to: from + 5 * MINUTE });
  await interval(h, 3);
  const [alert] = alerts(h);
  if (!alert) throw new Error('no alert');
  return alert;
}

const createForm = (domain: string) => ({
  [CREATE_IDS.domainBlock]: {
    [CREATE_IDS.domainInput]: { type: 'plain_text_input', value: domain },
  },
  [CREATE_IDS.planBlock]: {
    [CREATE_IDS.planInput]: {
      type: 'static_select',
      selected_option: { text: { type: 'plain_text', text: 'free' }, value: 'free' },
    },
  },
});

describe("a CDN account's operators group guards every change to it", () => {
  it('rate limit: the command and the On/Off buttons', async () => {
    const { h, staging } = await stagingHeld();
    try {
      await refusedCommand(h, `ratelimit staging/${ZONE} on`);
      const state = await ask(h, `ratelimit staging/${ZONE}`, MEMBER);
      await refusedClick(h, state, RATELIMIT_IDS.on);
      expect(zoneIn(staging).limits.enabled).not.toBe(true);
      expect(posts(staging.requests)).toEqual([]);

      await h.click(state, RATELIMIT_IDS.on, { user: ADMIN });
      await vi.waitFor(() => expect(zoneIn(staging).limits.enabled).toBe(true));
    } finally {
      await staging.close();
    }
  });

  it('create: the command, its form, and a form opened before the group was set', async () => {
    const { h, staging, was } = await stagingHeld(async ({ h }) => {
      // MEMBER opens staging's form while anyone may; the group is set before they submit it.
      const opened = h.slack.callsTo('views.open').length;
      await h.command('create account:staging', { user: MEMBER });
      const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', opened + 1);
      return viewIdOf(calls[opened]);
    });
    try {
      await refusedCommand(h, 'create staging/new-one.example');
      const opened = h.slack.callsTo('views.open').length;
      await refusedCommand(h, 'create account:staging');
      expect(h.slack.callsTo('views.open')).toHaveLength(opened);
      const submitted = await h.submit(was, createForm('formed.example'), { user: MEMBER });
      const { errors } = JSON.parse(submitted.body) as { errors: Record<string, string> };
      expect(textOf(errors[CREATE_IDS.domainBlock])).toContain(REFUSED);
      await h.deps.runner.settled();
      expect(posts(staging.requests)).toEqual([]);

      await h.command('create staging/new-one.example', { user: ADMIN });
      await vi.waitFor(() => expect(staging.state.byName('new-one.example')).toBeDefined());
    } finally {
      await staging.close();
    }
  });

  it("an alert's buttons: Turn rate limiting on, Snooze, Mute", async () => {
    const setup = await stagingHeld();
    const { h, staging } = setup;
    try {
      const alert = await stagingAlert(setup);
      for (const button of [WATCH_IDS.rateLimit, WATCH_IDS.snooze, WATCH_IDS.mute])
        await refusedClick(h, alert, button);
      await h.deps.runner.settled();
      expect(zoneIn(staging).limits.enabled).not.toBe(true);
      expect(posts(staging.requests)).toEqual([]);
      const [watch] = await h.store.watches.listForWorkspace(h.workspaceId);
      const rules = await h.store.watchRules.ruleStates([watch?.id ?? '']);
      expect(rules.filter((r) => r.muted || (r.snoozedUntil ?? 0) > 0)).toEqual([]);

      await h.click(alert, WATCH_IDS.rateLimit, { user: ADMIN });
      await h.slack.waitForMessages((m) => m.threadTs === alert.ts);
      expect(zoneIn(staging).limits.enabled).toBe(true);
    } finally {
      await staging.close();
    }
  });

  it('watch and unwatch', async () => {
    const { h, staging } = await stagingHeld();
    try {
      await refusedCommand(h, `watch staging/${ZONE}`);
      expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);
      expect((await ask(h, `watch staging/${ZONE}`, ADMIN)).text).toContain('Watching');
      await refusedCommand(h, `unwatch staging/${ZONE}`);
      expect(await h.store.watches.listForWorkspace(h.workspaceId)).toHaveLength(1);
      await ask(h, `unwatch staging/${ZONE}`, ADMIN);
      expect(await h.store.watches.listForWorkspace(h.workspaceId)).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it('daily reports: made, stopped by command and from the App Home', async () => {
    const { h, staging } = await stagingHeld();
    try {
      await refusedCommand(h, `report staging/${ZONE} daily`);
      expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([]);
      await ask(h, `report staging/${ZONE} daily`, ADMIN);
      const [schedule] = await h.store.schedules.listForWorkspace(h.workspaceId);
      if (!schedule) throw new Error('no report');

      await refusedCommand(h, `report stop ${schedule.id.slice(0, 8)}`);
      const home = await openHome(h, MEMBER);
      const opened = h.slack.callsTo('views.open').length;
      await h.clickInView(home.id, `${HOME_IDS.stopReport}_0`, { user: MEMBER });
      const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', opened + 1);
      expect(textOf(calls[opened]?.args.view)).toContain(REFUSED);
      expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toHaveLength(1);

      await ask(h, `report stop ${schedule.id.slice(0, 8)}`, ADMIN);
      expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it("a channel's binding: to staging, to its zone, and cleared or moved once bound", async () => {
    const { h, staging } = await stagingHeld();
    try {
      await refusedCommand(h, 'use staging/');
      await refusedCommand(h, `use staging/${ZONE}`);
      expect(await h.deps.channels.current(h.workspaceId, CHANNEL)).toEqual({ kind: 'none' });

      await ask(h, `use staging/${ZONE}`, ADMIN);
      await refusedCommand(h, 'use none');
      await refusedCommand(h, `use default/${ZONE}`);
      const bound = await h.deps.channels.current(h.workspaceId, CHANNEL);
      expect(bound).toMatchObject({ kind: 'set', account: 'staging' });
    } finally {
      await staging.close();
    }
  });

  it('verify at the edge, on a purge of staging', async () => {
    const { h, staging } = await stagingHeld();
    try {
      h.edge.setPurgeDelay(60_000);
      await h.command(`purge staging/example.com https://example.com/a.css`, { user: ADMIN });
      const [result] = await h.slack.waitForMessages(
        (m) => m.text === 'Purged 1 item on example.com',
      );
      if (!result) throw new Error('no purge');
      await refusedClick(h, result, `${VERIFY_IDS.verify}_0`);
      await h.deps.runner.settled();
      expect(h.edge.requests).toEqual([]);
      expect(purges(staging.requests)).toHaveLength(1);
    } finally {
      await staging.close();
    }
  });

  it("leaves default's zones to the workspace's operators: MEMBER changes them", async () => {
    const { h, staging } = await stagingHeld();
    try {
      await h.command(`ratelimit default/${ZONE} on`, { user: MEMBER });
      await vi.waitFor(() => expect(zoneIn(h.sandbox).limits.enabled).toBe(true));
      expect((await ask(h, `watch default/${ZONE}`, MEMBER)).text).toContain('Watching');
      await ask(h, `report default/${ZONE} daily`, MEMBER);
      expect(await h.store.schedules.listForWorkspace(h.workspaceId)).toHaveLength(1);
      await ask(h, `use default/${ZONE}`, MEMBER);
      expect(await h.deps.channels.current(h.workspaceId, CHANNEL)).toMatchObject({ kind: 'set' });
      await h.command('create default/new-two.example', { user: MEMBER });
      await vi.waitFor(() => expect(h.sandbox.state.byName('new-two.example')).toBeDefined());
      expect(posts(staging.requests)).toEqual([]);
    } finally {
      await staging.close();
    }
  });
});
