// Purge verification messages: "Checking…", the short summary with "Purge again" for the URLs
// still cached, and the per-URL details for its thread.
import type { KnownBlock } from '@slack/types';
import type { ProbeResult } from '../cdn/edge-probe.js';
import type { VerifySummary } from '../services/verify/verify.js';
import { zoneLabel } from '../zone-names.js';
import { summarise } from './fit.js';
import { VERIFY_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, join, type Mrkdwn, md, mrkdwn, plain, truncate, user } from './text.js';

/** URLs still cached named in the summary itself; the thread has all. */
const NAMED_IN_SUMMARY = 3;
/** Lines per section of the details (each well within a section's 3,000 characters). */
const LINES_PER_SECTION = 10;
/** Sections of details: 40 × 10 = 400 lines, more than a verification checks (200). */
const MAX_SECTIONS = 40;

const MARK = {
  fresh: ':white_check_mark:',
  cached: ':hourglass:',
  unknown: ':grey_question:',
  unchecked: ':no_entry_sign:',
} as const;

export function verifyProgressMessage(status: {
  zoneName: string;
  urls: number;
  actorId: string;
  warm?: boolean;
}): Message {
  const urls = `${status.urls.toLocaleString('en')} URL${status.urls === 1 ? '' : 's'}`;
  if (status.warm) {
    const text = md`:fire: Warming the cache of *${zoneLabel(status.zoneName)}*: asking the edge for ${urls}…`;
    return message(md`Warming ${urls}…`, [{ type: 'section', text: mrkdwn(text) }]);
  }
  const text = md`:mag: Checking ${urls} on *${zoneLabel(status.zoneName)}* at the edge for ${user(status.actorId)}…`;
  return message(md`Checking ${urls} at the edge…`, [{ type: 'section', text: mrkdwn(text) }]);
}

/** "48 fresh, 2 still cached, 1 unknown, 1 not checked". */
function countsText(counts: VerifySummary['counts']): string {
  const parts = [
    [counts.fresh, 'fresh'],
    [counts.cached, 'still cached'],
    [counts.unknown, 'unknown'],
    [counts.unchecked, 'not checked'],
  ] as const;
  return parts
    .filter(([count]) => count > 0)
    .map(([count, what]) => `${count.toLocaleString('en')} ${what}`)
    .join(', ');
}

/** A warming's summary: how many URLs the edge now serves from its cache. */
function warmSummaryMessage(summary: VerifySummary): Message {
  const { counts } = summary;
  const total = summary.results.length;
  const zone = md`*${zoneLabel(summary.zoneName)}*`;
  const mark = counts.cached === total ? ':fire:' : ':grey_question:';
  const cached = `${counts.cached.toLocaleString('en')} of ${total.toLocaleString('en')} URL${total === 1 ? '' : 's'}`;
  const line = md`${mark} Cache warmed on ${zone}: ${cached} came back cached`;
  return message(md`Cache warmed on ${zoneLabel(summary.zoneName)}: ${cached} came back cached`, [
    { type: 'section', text: mrkdwn(line) },
    { type: 'context', elements: [mrkdwn(md`Asked with the purge · each URL in the thread`)] },
  ]);
}

export function verifySummaryMessage(summary: VerifySummary): Message {
  if (summary.warm) return warmSummaryMessage(summary);
  const { counts } = summary;
  const cached = summary.results.filter((r) => r.verdict === 'cached').map((r) => r.url);
  const zone = md`*${zoneLabel(summary.zoneName)}*`;
  const named =
    cached.length > 0
      ? md`: ${summarise(cached, NAMED_IN_SUMMARY, (url) => code(truncate(url, 120)), ', ')}`
      : '';
  const mark =
    counts.cached > 0
      ? ':hourglass:'
      : counts.fresh === summary.results.length
        ? ':white_check_mark:'
        : ':grey_question:';
  const line = md`${mark} Edge check of ${zone}: ${countsText(counts)}${named}`;
  const blocks: KnownBlock[] = [{ type: 'section', text: mrkdwn(line) }];
  if (cached.length > 0) {
    blocks.push({
      type: 'actions',
      block_id: VERIFY_IDS.summaryActions,
      elements: [
        {
          type: 'button',
          text: plain(`Purge again the ${cached.length.toLocaleString('en')} still cached`, 75),
          action_id: VERIFY_IDS.purgeAgain,
          value: summary.jobId,
        },
      ],
    });
  }
  const skipped =
    summary.skipped > 0
      ? md` · ${summary.skipped.toLocaleString('en')} more URLs purged, not checked`
      : '';
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        md`${summary.auto ? 'Asked with the purge' : md`Asked by ${user(summary.actorId)}`} · each URL in the thread${skipped}`,
      ),
    ],
  });
  return message(md`Edge check of ${zoneLabel(summary.zoneName)}: ${countsText(counts)}`, blocks);
}

function detailLine(result: ProbeResult): Mrkdwn {
  const url = code(truncate(result.url, 200));
  if (result.verdict === 'unchecked')
    return md`${MARK.unchecked} ${url}: not checked, ${truncate(result.reason, 200)}`;
  const said = result.verdict === 'cached' ? 'still cached' : result.verdict;
  return md`${MARK[result.verdict]} ${url}: ${said} (${result.method} ${result.status}, ${code(truncate(result.evidence, 160))})`;
}

/** Every URL checked and what the edge said of it, for the summary's thread. */
export function verifyDetailsMessage(summary: VerifySummary): Message {
  const order = { cached: 0, unchecked: 1, unknown: 2, fresh: 3 } as const;
  const sorted = [...summary.results].sort((a, b) => order[a.verdict] - order[b.verdict]);
  const sections: KnownBlock[] = [];
  for (let i = 0; i < sorted.length && sections.length < MAX_SECTIONS; i += LINES_PER_SECTION) {
    const lines = sorted.slice(i, i + LINES_PER_SECTION).map(detailLine);
    sections.push({ type: 'section', text: mrkdwn(join(lines, '\n')) });
  }
  return message(md`Edge check of ${zoneLabel(summary.zoneName)}, URL by URL`, sections);
}

/** A Verify click while a check of the same purge is under way or has just been said. */
export function verifyAlreadyAskedMessage(): Message {
  const text = md`This purge is being checked, or was just now: its result is posted here.`;
  return message(text, [{ type: 'section', text: mrkdwn(md`:mag: ${text}`) }]);
}
