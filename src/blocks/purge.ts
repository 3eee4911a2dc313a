// Purge messages and forms: progress, results with a retry, refusals, and the two modals.
// (Over 400 lines: the purge form grew its When and warm fields; the forms are the part to split.)
import type { Button, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { Zone } from '../cdn/schemas.js';
import type { PurgeRun, PurgeStatus } from '../services/purge/purge-status.js';
import type { PurgePlan } from '../services/purge/purge-targets.js';
import { zoneEitherForm, zoneLabel, zoneUnicode } from '../zone-names.js';
import { actorLabel } from './actors.js';
import { errorText } from './errors.js';
import { andMore, summarise } from './fit.js';
import { PURGE_IDS, SCHEDULED_PURGE_IDS, VERIFY_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, join, type Mrkdwn, md, mrkdwn, plain, slackDate, truncate } from './text.js';
import { purgeZonePicker } from './zones.js';

const SHOWN = 15;

/** How many zones a progress line or a notification names; more are counted. */
const NAMED_ZONES = 10;

function what(files: number, tags: number): string {
  const parts = [];
  if (files > 0) parts.push(`${files.toLocaleString('en')} URL${files === 1 ? '' : 's'}`);
  if (tags > 0) parts.push(`${tags.toLocaleString('en')} tag${tags === 1 ? '' : 's'}`);
  return parts.join(' and ') || 'nothing';
}

/** Said after the zone's name when it was the channel's default rather than named. */
export const FROM_DEFAULT = " (this channel's default)";

/** Zone names, the first few of them, bold or not. */
const zoneNames = (names: readonly string[], bold = true) =>
  summarise(
    names,
    NAMED_ZONES,
    (name) => (bold ? md`*${zoneLabel(name)}*` : zoneLabel(name)),
    ', ',
  );

export function purgeProgressMessage(options: PurgeStatus): Message {
  const zones = md`${zoneNames(options.zoneNames)}${options.fromDefault ? FROM_DEFAULT : ''}`;
  const text = md`:broom: ${actorLabel(options.actorId)} is purging ${what(options.files, options.tags)} on ${zones}… ${options.done.toLocaleString('en')}/${options.total.toLocaleString('en')}`;
  return message(md`Purging: ${options.done}/${options.total}`, [
    { type: 'section', text: mrkdwn(text) },
  ]);
}

/** The progress message while the bot restarts: the purge resumes by itself, where it stopped. */
export function purgePausedMessage(options: PurgeStatus): Message {
  const progress = purgeProgressMessage(options);
  const note = md`:double_vertical_bar: Paused at ${options.done.toLocaleString('en')}/${options.total.toLocaleString('en')} for a restart of the bot; it resumes by itself where it stopped.`;
  return message(md`Purging (paused for a restart): ${options.done}/${options.total}`, [
    ...progress.blocks,
    { type: 'context', elements: [mrkdwn(note)] },
  ]);
}

/** How many zones get a full section (3 blocks each); more get a line and a retry button. */
const DETAILED_RUNS = 6;
/** How many zones a result shows at all (6 × 3 + 12 × 2 + 2 blocks, within a message's 50). */
const SHOWN_RUNS = 18;

function runBlocks(
  run: PurgeRun,
  actorId: string,
  index: number,
  detailed: boolean,
  fromDefault = false,
): KnownBlock[] {
  const { job, report } = run;
  const failed = [...job.failed.files, ...job.failed.tags.map((tag) => `tag:${tag}`)];
  const zone = md`*${zoneLabel(job.zoneName)}*${fromDefault ? FROM_DEFAULT : ''}`;
  const retried = job.retryOf ? ' (retry)' : '';
  // URLs that went through can be checked at the edge (tags cannot: they name no URL).
  const verify: Button[] =
    job.fileCount > job.failed.files.length
      ? [
          {
            type: 'button',
            text: plain('Verify at the edge'),
            action_id: `${VERIFY_IDS.verify}_${index}`,
            value: job.id,
          },
        ]
      : [];
  if (failed.length === 0) {
    return [
      {
        type: 'section',
        text: mrkdwn(
          md`:white_check_mark: ${actorLabel(actorId)} purged ${what(job.fileCount, job.tagCount)} on ${zone}${retried}.`,
        ),
      },
      ...(verify.length > 0
        ? [
            {
              type: 'actions',
              block_id: `${PURGE_IDS.resultActions}_${index}`,
              elements: verify,
            } satisfies KnownBlock,
          ]
        : []),
    ];
  }
  const headline = notPurgedHeadline(run, actorId, zone, retried);
  // Not confirmed ones are sent again too: purging a URL or tag twice does no harm.
  const unknown = unknownCount(run);
  const retry: KnownBlock = {
    type: 'actions',
    block_id: `${PURGE_IDS.resultActions}_${index}`,
    elements: [
      {
        type: 'button',
        text: plain(
          unknown > 0
            ? `Send the ${failed.length.toLocaleString('en')} again`
            : `Retry the ${failed.length.toLocaleString('en')} that failed`,
          75,
        ),
        // One button per zone in a message, and action ids must differ.
        action_id: `${PURGE_IDS.retry}_${index}`,
        value: job.id,
        style: 'primary',
      },
      ...verify,
    ],
  };
  if (!detailed) return [{ type: 'section', text: mrkdwn(headline) }, retry];
  const errors = [
    ...new Map(
      report.results.flatMap((r) => {
        if (r.ok) return [];
        const said = errorText(r.error);
        return [[said.text, said] as const];
      }),
    ).values(),
  ];
  const list = summarise(failed, SHOWN, (item) => md`• ${code(truncate(item, 200))}`);
  return [
    { type: 'section', text: mrkdwn(md`${headline}\n${join(errors.slice(0, 3), '\n')}`) },
    {
      type: 'section',
      text: mrkdwn(
        md`*${unknown === 0 ? 'Not purged' : unknown === failed.length ? 'Not confirmed' : 'Failed or not confirmed'}:*\n${list}`,
      ),
    },
    retry,
  ];
}

/** Said of items the CDN did not answer for (src/cdn/outcome.ts): not failed, not confirmed. */
const MAY_HAVE_BEEN = 'the CDN did not answer, they may have been purged';

/** Of a run's items not purged, how many may have been all the same (the CDN did not answer). */
const unknownCount = (run: PurgeRun): number =>
  run.report.unknown.files.length + run.report.unknown.tags.length;

/** Of a run's items, how many were not confirmed purged: failed, or of unknown outcome. */
const notPurgedCount = (run: PurgeRun): number =>
  run.job.failed.files.length + run.job.failed.tags.length;

/**
 * The first line of a zone's result when some of it was not purged: what failed is said as
 * failed, what the CDN did not answer for as not confirmed (it may have been purged).
 */
function notPurgedHeadline(run: PurgeRun, actorId: string, zone: Mrkdwn, retried: string): Mrkdwn {
  const { job } = run;
  const actor = actorLabel(actorId);
  const total = job.fileCount + job.tagCount;
  const unknown = unknownCount(run);
  const failed = notPurgedCount(run) - unknown;
  const purged = total - failed - unknown;
  const n = (value: number) => value.toLocaleString('en');
  if (failed === total)
    return md`:x: ${actor}'s purge of ${what(job.fileCount, job.tagCount)} on ${zone} failed${retried}.`;
  if (unknown === total)
    return md`:grey_question: ${actor}'s purge of ${what(job.fileCount, job.tagCount)} on ${zone} was not confirmed${retried}: ${MAY_HAVE_BEEN}.`;
  const parts = [
    ...(failed > 0 ? [`${n(failed)} failed`] : []),
    ...(unknown > 0 ? [`${n(unknown)} not confirmed: ${MAY_HAVE_BEEN}`] : []),
  ].join(', ');
  return md`${failed > 0 ? ':warning:' : ':grey_question:'} ${actor} purged ${n(purged)} of ${n(total)} on ${zone}${retried}; ${parts}.`;
}

export function purgeResultMessage(
  runs: PurgeRun[],
  actorId: string,
  options: { fromDefault?: boolean } = {},
): Message {
  const blocks = runs
    .slice(0, SHOWN_RUNS)
    .flatMap((run, index) =>
      runBlocks(run, actorId, index, index < DETAILED_RUNS, options.fromDefault),
    );
  const hidden = runs.slice(SHOWN_RUNS);
  if (hidden.length > 0) {
    const hiddenFailed = hidden.filter((run) => notPurgedCount(run) > 0).length;
    const hiddenUnknown = hidden.some((run) => unknownCount(run) > 0);
    const more = andMore(hidden.length, 'zones') as Mrkdwn;
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(
          hiddenFailed === 0
            ? md`${more}, all purged.`
            : md`${more}, ${hiddenFailed.toLocaleString('en')} of them with ${hiddenUnknown ? 'items failed or not confirmed' : 'failures'}: \`/cdn audit <zone>\` shows each, and purging them again retries.`,
        ),
      ],
    });
  }
  const requests = runs.reduce((sum, run) => sum + run.report.results.length, 0);
  const purgeIds = runs.flatMap((run) => run.job.purgeIds);
  const ids =
    purgeIds.length > 0
      ? md` · purge ids: ${join(purgeIds.slice(0, 5).map(code), ', ')}${purgeIds.length > 5 ? '…' : ''}`
      : '';
  blocks.push({
    type: 'context',
    elements: [mrkdwn(md`${requests} request${requests === 1 ? '' : 's'} to the CDN${ids}`)],
  });
  const unknown = runs.reduce((sum, run) => sum + unknownCount(run), 0);
  const failed = runs.reduce((sum, run) => sum + notPurgedCount(run), 0) - unknown;
  const total = runs.reduce((sum, run) => sum + run.job.fileCount + run.job.tagCount, 0);
  const zones = zoneNames(
    runs.map((run) => run.job.zoneName),
    false,
  );
  return message(
    failed + unknown === 0
      ? md`Purged ${total} item${total === 1 ? '' : 's'} on ${zones}`
      : failed === 0
        ? md`Purge on ${zones}: ${unknown} of ${total} not confirmed`
        : md`Purge on ${zones}: ${failed} of ${total} failed${unknown > 0 ? md`, ${unknown} not confirmed` : ''}`,
    blocks,
  );
}

export function purgeRefusedMessage(plan: PurgePlan): Message {
  const lines = summarise(
    plan.rejected,
    SHOWN,
    (r) => md`• ${code(truncate(r.item, 200))}: ${truncate(r.reason, 200)}`,
  );
  const text = md`Nothing was purged: ${plan.rejected.length} item${plan.rejected.length === 1 ? ' was' : 's were'} refused.`;
  return message(text, [
    {
      type: 'section',
      text: mrkdwn(
        md`:no_entry_sign: ${text} Fix ${plan.rejected.length === 1 ? 'it' : 'them'} and run the purge again.`,
      ),
    },
    { type: 'section', text: mrkdwn(lines) },
  ]);
}

const MODES: Array<{ value: 'urls' | 'tags' | 'everything'; label: string }> = [
  { value: 'urls', label: 'URLs' },
  { value: 'tags', label: 'Cache tags' },
  { value: 'everything', label: 'Everything (needs a second person’s approval)' },
];

export function purgeFormModal(options: {
  metadata: string;
  zone?: Zone;
  items?: string[];
  /** Several CDN accounts are in play: zones are shown as `<account>/<zone>`. */
  labelled?: boolean;
}): ModalView {
  const urls = MODES[0] as (typeof MODES)[number];
  const modeOption = (mode: (typeof MODES)[number]): PlainTextOption => ({
    text: plain(mode.label),
    value: mode.value,
  });
  return {
    type: 'modal',
    callback_id: PURGE_IDS.formCallback,
    title: plain('Purge cached content'),
    submit: plain('Continue'),
    close: plain('Cancel'),
    private_metadata: options.metadata,
    blocks: [
      {
        type: 'input',
        block_id: PURGE_IDS.zoneBlock,
        label: plain('Zone'),
        element: purgeZonePicker(options.zone, options.labelled),
      },
      {
        type: 'input',
        block_id: PURGE_IDS.modeBlock,
        label: plain('What to purge'),
        element: {
          type: 'radio_buttons',
          action_id: PURGE_IDS.modeInput,
          options: MODES.map(modeOption),
          initial_option: modeOption(urls),
        },
      },
      {
        type: 'input',
        block_id: PURGE_IDS.itemsBlock,
        optional: true,
        label: plain('URLs or cache tags'),
        hint: plain(
          'One per line (or separated by spaces). URLs must be in the zone. Not needed for Everything.',
        ),
        element: {
          type: 'plain_text_input',
          action_id: PURGE_IDS.itemsInput,
          multiline: true,
          ...(options.items && options.items.length > 0
            ? { initial_value: truncate(options.items.join('\n'), 3000) }
            : {}),
        },
      },
      {
        type: 'input',
        block_id: PURGE_IDS.verifyBlock,
        optional: true,
        label: plain('Once purged'),
        element: {
          type: 'checkboxes',
          action_id: PURGE_IDS.verifyInput,
          options: [
            {
              text: plain('Check the URLs at the edge once purged'),
              value: 'verify',
            },
            {
              text: plain('Warm the cache: ask the edge for the URLs again'),
              value: 'warm',
            },
          ],
        },
      },
      {
        type: 'input',
        block_id: SCHEDULED_PURGE_IDS.whenBlock,
        optional: true,
        label: plain('When'),
        hint: plain(
          'Empty: now. Or later: `in 30m`, `in 2h`, `at 02:00` or `at 2026-12-24 02:00` (your Slack time zone), at most 7 days ahead.',
        ),
        element: {
          type: 'plain_text_input',
          action_id: SCHEDULED_PURGE_IDS.whenInput,
          max_length: 40,
          placeholder: plain('now'),
        },
      },
    ],
  };
}

export function purgeEverythingModal(options: {
  zone: Zone;
  metadata: string;
  /** For a later time: it runs then, if approved before. */
  notBefore?: number;
}): ModalView {
  const name = zoneLabel(options.zone.name);
  // Whose zone, when it was found among CDN accounts: two may hold the same name.
  const { accountName } = options.zone;
  const where = accountName ? md` in the CDN account ${code(accountName)}` : '';
  const later =
    options.notBefore === undefined
      ? md`A second person must approve it before it runs.`
      : md`It runs ${slackDate(options.notBefore)}, if a second person approves it before then; unapproved by then, it does not run.`;
  return {
    type: 'modal',
    callback_id: PURGE_IDS.everythingCallback,
    title: plain('Purge everything?'),
    submit: plain('Ask for approval'),
    close: plain('Cancel'),
    private_metadata: options.metadata,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`:rotating_light: This empties the cache of *${name}*${where} at every edge location. Until it refills, every request goes to the origin. ${later}`,
        ),
      },
      {
        type: 'input',
        block_id: PURGE_IDS.confirmBlock,
        label: plain(truncate(`Type ${zoneEitherForm(options.zone.name)} to confirm`, 2000)),
        element: {
          type: 'plain_text_input',
          action_id: PURGE_IDS.confirmInput,
          placeholder: plain(truncate(zoneUnicode(options.zone.name), 150)),
        },
      },
      {
        type: 'input',
        block_id: PURGE_IDS.reasonBlock,
        label: plain('Reason'),
        hint: plain('Shown to the approvers and kept in the audit log.'),
        element: {
          type: 'plain_text_input',
          action_id: PURGE_IDS.reasonInput,
          multiline: true,
          max_length: 500,
        },
      },
    ],
  };
}

/** The form's inline answer when items were refused (plain text: modal errors are not mrkdwn). */
export function purgeRefusedInline(plan: PurgePlan): string {
  const shown = plan.rejected.slice(0, 5).map((r) => `${truncate(r.item, 80)}: ${r.reason}`);
  const more = plan.rejected.length > 5 ? `; and ${plan.rejected.length - 5} more` : '';
  return `Nothing was purged. Refused: ${shown.join('; ')}${more}.`;
}
