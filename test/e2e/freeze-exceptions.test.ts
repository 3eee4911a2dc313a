// Change freezes, the edges: an exception request closed when its freeze is removed or its window
// ends (its message without buttons, a late click told why), a freeze on a whole CDN account,
// what guests and outsiders see of freezes, and zone creation refused as soon as its form opens.
import { describe, expect, it } from 'vitest';
import { FREEZE_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { ask, twoAccounts } from './account-flows.js';
import { answerTo, commandReply, openHome } from './flows.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const GUEST = 'UGUEST';
const SINGLE = 'USINGLE';
const EXTERNAL = 'UEXTERNAL';

async function inChannel(h: Harness, text: string): Promise<Message> {
  const [message] = await h.slack.waitForMessages(
    (m) => m.via === 'api' && m.channel === CHANNEL && (m.text?.includes(text) ?? false),
  );
  if (!message) throw new Error(`no message saying ${text}`);
  return message;
}

const hasButtons = (message: Message) =>
  JSON.stringify(message.blocks ?? []).includes(FREEZE_IDS.approve);

/** Declares a freeze on example.com from now (Sunday 11:00 in Paris) to 18:00; MEMBER asks an exception. */
async function exceptionAsked(h: Harness): Promise<Message> {
  await commandReply(h, 'freeze add example.com 2026-11-22 10:00 → 2026-11-22 18:00 Launch', {
    user: ADMIN,
  });
  await commandReply(h, 'freeze except example.com ratelimit Origin overloaded', { user: MEMBER });
  return inChannel(h, 'asks for an exception to the change freeze');
}

describe('freeze exceptions that can no longer be used', () => {
  it('are closed when their freeze is removed: the message loses its buttons and says why, a late click too', async () => {
    const h = await startHarness();
    await h.login();
    const exception = await exceptionAsked(h);
    expect(hasButtons(exception)).toBe(true);
    // The message as a client that has not seen the update still shows it.
    const stale = structuredClone(exception);

    const [freeze] = await h.store.freezes.list(h.workspaceId);
    await commandReply(h, `freeze remove ${freeze?.id}`, { user: ADMIN });
    await h.deps.runner.settled();
    await h.slack.waitForMessages(
      (m) => m === exception && (m.text?.includes('the change freeze was removed') ?? false),
    );
    expect(hasButtons(exception)).toBe(false);

    // A click on the buttons still shown somewhere (an old client) says why, and approves nothing.
    const late = await answerTo(h, ADMIN, () =>
      h.click(stale, FREEZE_IDS.approve, { user: ADMIN }),
    );
    expect(late).toContain('its change freeze was removed');
    const [stored] = (await h.store.audit.recent(h.workspaceId)).filter((e) =>
      e.action.startsWith('freeze.exception.'),
    );
    expect(stored?.action).toBe('freeze.exception.cancelled');
    expect((await h.store.audit.recent(h.workspaceId)).map((e) => e.action)).not.toContain(
      'freeze.exception.approved',
    );
  });

  it('a click after the window ended says so, and the round closes its message once', async () => {
    const h = await startHarness();
    await h.login();
    const exception = await exceptionAsked(h);
    const stale = structuredClone(exception);
    h.clock.advance(8 * 3600_000);

    // Clicked before any round ran: told why, nothing approved, the message closed.
    const late = await answerTo(h, ADMIN, () =>
      h.click(stale, FREEZE_IDS.approve, { user: ADMIN }),
    );
    expect(late).toContain('its freeze window ended');
    await h.deps.runner.settled();
    await h.slack.waitForMessages(
      (m) => m === exception && (m.text?.includes('the freeze window ended') ?? false),
    );
    expect(hasButtons(exception)).toBe(false);

    // An approved one that was never used is closed by the round when its window ends.
    await commandReply(h, 'freeze add example.com 2026-11-22 18:30 → 2026-11-22 20:00 Encore', {
      user: ADMIN,
    });
    await commandReply(h, 'freeze except example.com ratelimit Origin overloaded', {
      user: MEMBER,
    });
    const asked = (m: Message) =>
      m.via === 'api' && (m.text?.includes('asks for an exception') ?? false);
    const second = (await h.slack.waitForMessages(asked, 2))[1];
    if (!second) throw new Error('no second exception');
    await h.click(second, FREEZE_IDS.approve, { user: ADMIN });
    await h.slack.waitForMessages((m) => m === second && (m.text?.includes('Approved') ?? false));
    h.clock.advance(2 * 3600_000);
    await h.deps.freezes.announceDue();
    await h.deps.runner.settled();
    await h.deps.freezes.announceDue();
    await h.deps.runner.settled();
    await h.slack.waitForMessages(
      (m) => m === second && (m.text?.includes('the freeze window ended') ?? false),
    );
    expect(hasButtons(second)).toBe(false);
    const expired = (await h.store.audit.recent(h.workspaceId)).filter(
      (e) => e.action === 'freeze.exception.expired',
    );
    expect(expired).toHaveLength(2);
  });
});

describe('a freeze on a CDN account', () => {
  it("refuses changes to that account's zones and zone creation in it, not another account's", async () => {
    const { h, staging } = await twoAccounts();
    try {
      const declared = await ask(
        h,
        'freeze add account:staging 2026-11-22 10:00 → 2026-11-22 18:00 Staging migration',
        ADMIN,
      );
      expect(declared.text).toContain('*staging*');

      const frozen = await answerTo(h, MEMBER, () =>
        h.command('ratelimit only-in-staging.example on account:staging'),
      );
      expect(frozen).toContain('Changing rate limits is frozen on *staging*');
      // The exception it suggests names what changes, as `/cdn freeze except` reads it.
      expect(frozen).toContain(
        '`/cdn freeze except only-in-staging.example ratelimit &lt;reason&gt;`',
      );
      const create = await answerTo(h, MEMBER, () =>
        h.command('create new.example.dev account:staging'),
      );
      expect(create).toContain('Onboarding domains is frozen on *staging*');
      expect(create).toContain('`/cdn freeze except account:staging create &lt;reason&gt;`');
      // The form is refused too, at once, not only when submitted.
      const opens = h.slack.callsTo('views.open').length;
      const form = await answerTo(h, MEMBER, () => h.command('create account:staging'));
      expect(form).toContain('Onboarding domains is frozen on *staging*');
      expect(h.slack.callsTo('views.open')).toHaveLength(opens);
      expect(staging.requests.filter((r) => r.method !== 'GET')).toEqual([]);

      // The default account's zones and zone creation go on.
      const created = await commandReply(h, 'create other.example.dev account:default', {
        user: MEMBER,
      });
      expect(textOf(created.blocks)).toContain('other.example.dev');
      await h.command('ratelimit example.com on account:default', { user: MEMBER });
      await h.slack.waitForMessages(
        (m) => m.via === 'api' && (m.text?.includes('propagating') ?? false),
      );
    } finally {
      await staging.close();
    }
  });
});

describe('guests and people from another workspace', () => {
  it('are refused /cdn freeze list and see no "Change freezes" in the App Home', async () => {
    const h = await startHarness();
    h.slack.addUser({ id: GUEST, name: 'grace', isRestricted: true });
    h.slack.addUser({ id: SINGLE, name: 'sam', isUltraRestricted: true });
    h.slack.addUser({ id: EXTERNAL, name: 'wei', teamId: 'T0PARTNER' });
    await h.login();
    await commandReply(
      h,
      'freeze add example.com 2026-11-22 10:00 → 2026-11-22 18:00 Secret launch',
      {
        user: ADMIN,
      },
    );

    const member = await commandReply(h, 'freeze list', { user: MEMBER });
    expect(textOf(member.blocks)).toContain('Secret launch');
    expect(textOf((await openHome(h, MEMBER)).view)).toContain('Change freezes');

    for (const outsider of [GUEST, SINGLE, EXTERNAL]) {
      const refused = await answerTo(h, outsider, () =>
        h.command('freeze list', { user: outsider }),
      );
      expect(refused).not.toContain('Secret launch');
      expect(refused).toMatch(/can't|cannot|not a member|another workspace/i);
      const home = textOf((await openHome(h, outsider)).view);
      expect(home).not.toContain('Change freezes');
      expect(home).not.toContain('Secret launch');
    }
  });
});

describe('zone creation during a freeze', () => {
  it('is refused as soon as the form is asked for, and the form opens with an approved exception', async () => {
    const h = await startHarness();
    await h.login();
    await commandReply(h, 'freeze add workspace 2026-11-22 10:00 → 2026-11-22 18:00 Audit week', {
      user: ADMIN,
    });
    const opens = h.slack.callsTo('views.open').length;
    const refused = await answerTo(h, MEMBER, () => h.command('create', { user: MEMBER }));
    expect(refused).toContain('Onboarding domains is frozen on *workspace*');
    expect(h.slack.callsTo('views.open')).toHaveLength(opens);

    // With an approved exception the form opens (the exception is used by the creation itself).
    await commandReply(h, 'freeze except account:default create New storefront', { user: MEMBER });
    const exception = await inChannel(h, 'asks for an exception to the change freeze');
    const id = exceptionId(exception);
    await h.click(exception, FREEZE_IDS.approve, { user: ADMIN });
    await h.slack.waitForMessages(
      (m) => m === exception && (m.text?.includes('Approved') ?? false),
    );
    await h.command('create', { user: MEMBER });
    await h.slack.waitForCalls((c) => c.method === 'views.open', opens + 1);
    expect((await h.store.freezes.getException(h.workspaceId, id))?.status).toBe('approved');
  });
});

function exceptionId(message: Message): string {
  const match = /"value":"([^"]+)"/.exec(JSON.stringify(message.blocks ?? []));
  return match?.[1] ?? '';
}
