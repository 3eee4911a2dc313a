// The purge result message: batches the CDN did not answer for (a timeout, a 5xx, a connection lost
// after sending) are said as not confirmed, never as failed; batches never sent or refused, as failed.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { purgeResultMessage } from '../../src/blocks/purge.js';
import { CdnError } from '../../src/cdn/errors.js';
import { type PurgeBatchResult, reportOf } from '../../src/cdn/purge.js';
import { validateBlocks } from '../../src/dev/fake-slack/validate.js';
import type { PurgeRun } from '../../src/services/purge/purge-status.js';

const URLS = Array.from({ length: 3_000 }, (_, i) => `https://example.com/assets/${i}.js`);
const BATCH = 30;

/** 3,000 URLs in batches of 30; the batches at `failing` end with the error given. */
function runOf(failing: Record<number, CdnError>): PurgeRun {
  const results: PurgeBatchResult[] = [];
  for (let start = 0, i = 0; start < URLS.length; start += BATCH, i++) {
    const items = URLS.slice(start, start + BATCH);
    const error = failing[i];
    results.push(
      error ? { kind: 'files', items, ok: false, error } : { kind: 'files', items, ok: true },
    );
  }
  const report = reportOf(results);
  const notPurged = report.failed.files.length;
  return {
    report,
    job: {
      id: 'job-1-0',
      workspaceId: 'T1',
      accountId: 'acc_1',
      zoneId: 'zone_1',
      zoneName: 'example.com',
      actorId: 'U1',
      fileCount: URLS.length,
      tagCount: 0,
      status: notPurged === 0 ? 'succeeded' : 'partial',
      failed: report.failed,
      purgeIds: [],
      retryOf: null,
      createdAt: 0,
      finishedAt: 1,
    },
  };
}

const timeout = () => new CdnError('timeout', 'The CDN did not answer within 10 s');
const outage = () => new CdnError('unavailable', 'The CDN API is having trouble', { status: 503 });
const refused = () => new CdnError('invalid_request', 'files must be in the zone', { status: 400 });
/** A batch a given-up job never sent (src/services/purge/purge.ts NOT_SENT). */
const notSent = () =>
  new CdnError('unavailable', 'not sent: the purge stopped after repeated failures', {
    notSent: true,
  });

const shown = (message: ReturnType<typeof purgeResultMessage>) => JSON.stringify(message.blocks);
const button = (message: ReturnType<typeof purgeResultMessage>) => {
  for (const block of message.blocks)
    if (block.type === 'actions')
      for (const element of block.elements)
        if (element.type === 'button' && element.action_id === `${PURGE_IDS.retry}_0`)
          return element.text.text;
  return undefined;
};

describe('the purge result message', () => {
  it('says batches that timed out or got a 5xx as not confirmed, never as failed', () => {
    const message = purgeResultMessage(
      [runOf({ 3: timeout(), 10: timeout(), 50: outage(), 99: timeout() })],
      'U1',
    );
    expect(message.text).toBe('Purge on example.com: 120 of 3000 not confirmed');
    expect(shown(message)).toContain(
      ':grey_question: <@U1> purged 2,880 of 3,000 on *example.com*; 120 not confirmed: the CDN did not answer, they may have been purged.',
    );
    expect(shown(message)).not.toContain('failed');
    expect(shown(message)).toContain('*Not confirmed:*');
    // Sent again all the same: purging a URL twice does no harm.
    expect(button(message)).toBe('Send the 120 again');
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
  });

  it('says a purge the CDN answered for not at all as not confirmed', () => {
    const all = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, timeout()]));
    const message = purgeResultMessage([runOf(all)], 'U1');
    expect(message.text).toBe('Purge on example.com: 3000 of 3000 not confirmed');
    expect(shown(message)).toContain(
      ":grey_question: <@U1>'s purge of 3,000 URLs on *example.com* was not confirmed: the CDN did not answer, they may have been purged.",
    );
    expect(button(message)).toBe('Send the 3,000 again');
  });

  it('says batches refused or never sent as failed, and the others apart', () => {
    const message = purgeResultMessage(
      [runOf({ 0: refused(), 1: notSent(), 2: timeout(), 3: outage() })],
      'U1',
    );
    expect(message.text).toBe('Purge on example.com: 60 of 3000 failed, 60 not confirmed');
    expect(shown(message)).toContain(
      ':warning: <@U1> purged 2,880 of 3,000 on *example.com*; 60 failed, 60 not confirmed: the CDN did not answer, they may have been purged.',
    );
    expect(shown(message)).toContain('*Failed or not confirmed:*');
    expect(button(message)).toBe('Send the 120 again');
  });

  it('keeps the wording of a purge whose batches all failed', () => {
    const message = purgeResultMessage([runOf({ 0: refused(), 7: notSent() })], 'U1');
    expect(message.text).toBe('Purge on example.com: 60 of 3000 failed');
    expect(shown(message)).toContain('purged 2,940 of 3,000 on *example.com*; 60 failed.');
    expect(shown(message)).not.toContain('not confirmed');
    expect(button(message)).toBe('Retry the 60 that failed');
  });
});
