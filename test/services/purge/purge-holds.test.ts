// A purge naming a zone that does not serve some of its URLs, against the CDN sandbox on loopback,
// a real store (SQLite and PostgreSQL) and the real job runner: the URLs set aside name the zone
// serving them, nothing is sent until the requester confirms, and then only the rest, on the zone
// named, once; a cancel, another person, or a lapsed hold sends nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { PURGE_HOLD_MS } from '../../../src/services/purge/purge-holds.js';
import type { ReplyTo } from '../../../src/services/reply.js';
import { BACKENDS, type Backend } from '../../helpers/store.js';
import { callerOf, opened, purgeSetup } from '../purge-setup.js';

const REQUESTER = callerOf('U1');
const OTHER = callerOf('U2');
const CHANNEL = 'C1';
const REPLY: ReplyTo = { userId: 'U1', channelId: CHANNEL, issuedAt: 0, visibility: 'in_channel' };

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function setup(backend: Backend) {
  const t = await purgeSetup(backend);
  /** Plans `/cdn purge <words>` and holds it, as the command does when URLs are set aside. */
  const hold = async (words: string) => {
    const plan = await t.purges.plan(REQUESTER, CHANNEL, t.items(words));
    expect(plan.rejected).toEqual([]);
    return { plan, held: await t.holds.hold(plan) };
  };
  return { ...t, hold };
}

for (const { backend, skip } of BACKENDS) {
  describe.skipIf(skip)(
    `a purge held for the URLs the zone named does not serve (${backend})`,
    () => {
      it('names the zone serving each URL set aside, sends nothing, then on confirm only the rest on the zone named, once', async () => {
        const t = await setup(backend);
        const { plan, held } = await t.hold(
          'example.com https://static.example.com/a.css https://example.com/b.css https://a.static.example.com/c.css https://nowhere.test/d https://www.example.com/e.js',
        );
        expect(plan.elsewhere).toEqual([
          {
            item: 'https://static.example.com/a.css',
            host: 'static.example.com',
            servedBy: 'static.example.com',
          },
          // The longest zone name wins: static.example.com, not example.com.
          {
            item: 'https://a.static.example.com/c.css',
            host: 'a.static.example.com',
            servedBy: 'static.example.com',
          },
          { item: 'https://nowhere.test/d', host: 'nowhere.test' },
        ]);
        expect(held).toMatchObject({ actorId: 'U1', zoneName: 'example.com', count: 2 });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);

        // Another person may not decide it, even with the id.
        await expect(t.holds.confirm(OTHER, CHANNEL, held.id, REPLY)).rejects.toMatchObject({
          code: 'not_purge_requester',
        });
        await expect(t.holds.cancel(OTHER, held.id)).rejects.toMatchObject({
          code: 'not_purge_requester',
        });

        // Two clicks at once (or a retried delivery): one purge.
        const clicks = await Promise.allSettled([
          t.holds.confirm(REQUESTER, CHANNEL, held.id, REPLY),
          t.holds.confirm(REQUESTER, CHANNEL, held.id, REPLY),
        ]);
        expect(clicks.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
        await t.runner.settled();
        await expect(t.holds.confirm(REQUESTER, CHANNEL, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'confirmed' },
        });
        await expect(t.holds.cancel(REQUESTER, held.id)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'confirmed' },
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([
          {
            zone: 'example.com',
            files: ['https://example.com/b.css', 'https://www.example.com/e.js'],
          },
        ]);
        expect(t.finished).toHaveLength(1);
        expect(t.finished[0]?.runs.map((r) => r.job.zoneName)).toEqual(['example.com']);
      });

      it('purges nothing once cancelled, nor when confirmed after', async () => {
        const t = await setup(backend);
        const { held } = await t.hold(
          'example.com https://example.com/a https://static.example.com/b',
        );
        await t.holds.cancel(REQUESTER, held.id);
        await expect(t.holds.confirm(REQUESTER, CHANNEL, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'cancelled' },
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);
      });

      it('lapses: a confirm after the hold’s time sends nothing', async () => {
        const t = await setup(backend);
        const { held } = await t.hold(
          'example.com https://example.com/a https://static.example.com/b',
        );
        t.clock.advance(PURGE_HOLD_MS);
        await expect(t.holds.confirm(REQUESTER, CHANNEL, held.id, REPLY)).rejects.toMatchObject({
          problem: { code: 'purge_hold_closed', status: 'expired' },
        });
        await expect(
          t.holds.confirm(REQUESTER, CHANNEL, 'no-such-hold', REPLY),
        ).rejects.toMatchObject({
          code: 'purge_hold_unknown',
        });
        await t.runner.settled();
        expect(t.purgeRequests()).toEqual([]);
      });
    },
  );
}
