// /cdn audit over the signed HTTP receiver and the fake Slack: filters, Previous/Next pages that
// keep them, the CSV export arriving in the requester's DM, and a guest refused both.
import { describe, expect, it } from 'vitest';
import { AUDIT_IDS } from '../../src/blocks/ids.js';
import { ADMIN, type Harness, MEMBER, startHarness, textOf } from './harness.js';

const GUEST = 'UGUEST';

async function withEntries(): Promise<Harness> {
  const h = await startHarness();
  // The account the entries' zone is of (keyless: the entries are all this test needs).
  const account = await h.store.accounts.create(h.workspaceId, {
    name: 'default',
    by: { userId: ADMIN, validated: false },
  });
  h.slack.addUser({ id: GUEST, name: 'grace', isRestricted: true });
  for (let i = 0; i < 45; i++) {
    await h.store.audit.record({
      workspaceId: h.workspaceId,
      actorId: i % 3 === 0 ? ADMIN : MEMBER,
      action: i % 3 === 0 ? 'ratelimit.on' : 'purge.urls',
      zoneId: 'zone_x',
      zoneName: 'example.com',
      accountId: account.id,
      outcome: 'ok',
      detail: { files: i + 1, note: i === 0 ? '=HYPERLINK("x")' : 'n' },
    });
    h.clock.advance(60_000);
  }
  return h;
}

/** The last message shown only to `user`. */
const lastTo = async (h: Harness, user: string, count: number) =>
  (await h.slack.waitForMessages((m) => m.ephemeralTo === user, count)).at(-1);

describe('/cdn audit', () => {
  it('filters, pages with Previous/Next keeping the filters, and refuses a guest', async () => {
    const h = await withEntries();
    await h.command('audit example.com kind:purge');
    const page = await lastTo(h, MEMBER, 1);
    if (!page) throw new Error('no page');
    const text = textOf(page.blocks);
    expect(text).toContain('Audit log · example.com · kind:purge');
    expect(text).not.toContain('ratelimit.on');
    expect((text.match(/purge\.urls/g) ?? []).length).toBe(20);

    await h.click(page, AUDIT_IDS.next);
    await h.slack.waitForMessages((m) => m === page && m.history.length === 1);
    const second = textOf(page.blocks);
    expect((second.match(/purge\.urls/g) ?? []).length).toBe(10);
    expect(second).not.toContain('ratelimit.on');
    expect(JSON.stringify(page.blocks)).toContain(AUDIT_IDS.previous);
    expect(JSON.stringify(page.blocks)).not.toContain(AUDIT_IDS.next);

    await h.click(page, AUDIT_IDS.previous);
    await h.slack.waitForMessages((m) => m === page && m.history.length === 2);
    expect(textOf(page.blocks)).toBe(text);

    await h.command('audit', { user: GUEST });
    expect((await lastTo(h, GUEST, 1))?.text).toBe(
      "Guests can't read the audit log in this workspace.",
    );
    await h.command('audit export', { user: GUEST });
    expect((await lastTo(h, GUEST, 2))?.text).toBe(
      "Guests can't read the audit log in this workspace.",
    );
    expect(h.slack.callsTo('files.getUploadURLExternal')).toHaveLength(0);
  });

  it('exports the filtered entries as a CSV file shared in the requester’s DM, one at a time', async () => {
    const h = await withEntries();
    await h.command('audit export kind:ratelimit');
    expect((await lastTo(h, MEMBER, 1))?.text).toContain(
      'Making your audit export (kind:ratelimit)',
    );
    await h.deps.runner.settled();
    const [complete] = await h.slack.waitForCalls(
      (call) => call.method === 'files.completeUploadExternal',
    );
    expect(complete?.args.channel_id).toBe(`D${MEMBER}`);
    const file = [...h.slack.files.values()].find((f) => f.completed);
    if (!file) throw new Error('no file');
    expect(file.filename).toMatch(/^audit-\d{8}T\d{4}\.csv$/);
    const lines = file.bytes
      .toString('utf8')
      .split('\r\n')
      .filter((l) => l !== '');
    // Every cell quoted (RFC 4180).
    expect(lines[0]).toBe(
      '"id","time_utc","actor","action","kind","zone_id","zone_name","outcome","withheld","detail","account"',
    );
    expect(lines).toHaveLength(16);
    expect(lines.slice(1).every((l) => l.includes(',"ratelimit.on","ratelimit",'))).toBe(true);
    // The formula in a note is inert in the JSON cell: no piece of it (split on , ; or tab) starts
    // with =. Times are UTC.
    expect(lines.at(-1)).toContain(',""note"":""=HYPERLINK(\\""x\\"")""}"');
    expect(lines.at(-1)).toMatch(/Z","UADMIN","ratelimit\.on"/);
    expect(file.initialComment).toContain('15 entries, times in UTC');
    expect((await h.store.jobs.countByState()).succeeded).toBe(1);

    // The next one runs again once the first is done (not refused for good).
    await h.command('audit export');
    expect((await lastTo(h, MEMBER, 2))?.text).toContain('Making your audit export');
  });
});
