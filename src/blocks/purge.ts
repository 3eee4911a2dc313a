// Purge messages and forms: progress, results with a retry, refusals, and the two modals.
import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { Zone } from '../cdn/schemas.js';
import type { PurgeRun, PurgeStatus } from '../services/purge.js';
import type { PurgePlan } from '../services/purge-targets.js';
import { errorText } from './errors.js';
import { PURGE_IDS } from './ids.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, truncate, user } from './text.js';
import { zonePicker } from './zones.js';

const SHOWN = 15;

function what(files: number, tags: number): string {
  const parts = [];
  if (files > 0) parts.push(`${files.toLocaleString('en')} URL${files === 1 ? '' : 's'}`);
  if (tags > 0) parts.push(`${tags.toLocaleString('en')} tag${tags === 1 ? '' : 's'}`);
  return parts.join(' and ') || 'nothing';
}

/** A purge form sent from a channel purges are not allowed in, in a form field's plain text. */
export const PURGE_CHANNELS_INLINE =
  'Purges may only be run from the channels a workspace admin chose (/cdn config lists them). Nothing was purged.';

/** Said after the zone's name when it was the channel's default rather than named. */
export const FROM_DEFAULT = " (this channel's default)";

export function purgeProgressMessage(options: PurgeStatus): Message {
  const zones = `${options.zoneNames.map((name) => `*${escapeMrkdwn(name)}*`).join(', ')}${options.fromDefault ? FROM_DEFAULT : ''}`;
  const text = `:broom: ${user(options.actorId)} is purging ${what(options.files, options.tags)} on ${zones}… ${options.done.toLocaleString('en')}/${options.total.toLocaleString('en')}`;
  return {
    text: `Purging: ${options.done}/${options.total}`,
    blocks: [{ type: 'section', text: mrkdwn(truncate(text, 3000)) }],
  };
}

/** The progress message while the bot restarts: the purge resumes by itself, where it stopped. */
export function purgePausedMessage(options: PurgeStatus): Message {
  const progress = purgeProgressMessage(options);
  const note = `:double_vertical_bar: Paused at ${options.done.toLocaleString('en')}/${options.total.toLocaleString('en')} for a restart of the bot; it resumes by itself where it stopped.`;
  return {
    text: `Purging (paused for a restart): ${options.done}/${options.total}`,
    blocks: [...progress.blocks, { type: 'context', elements: [mrkdwn(note)] }],
  };
}

/** How many zones get a full section; more are summed up in one line each. */
const DETAILED_RUNS = 6;

function runBlocks(
  run: PurgeRun,
  actorId: string,
  index: number,
  detailed: boolean,
  fromDefault = false,
): KnownBlock[] {
  const { job, report } = run;
  const total = job.fileCount + job.tagCount;
  const failed = [...job.failed.files, ...job.failed.tags.map((tag) => `tag:${tag}`)];
  const zone = `*${escapeMrkdwn(job.zoneName)}*${fromDefault ? FROM_DEFAULT : ''}`;
  const retried = job.retryOf ? ' (retry)' : '';
  if (failed.length === 0) {
    return [
      {
        type: 'section',
        text: mrkdwn(
          `:white_check_mark: ${user(actorId)} purged ${what(job.fileCount, job.tagCount)} on ${zone}${retried}.`,
        ),
      },
    ];
  }
  const headline =
    failed.length === total
      ? `:x: ${user(actorId)}'s purge of ${what(job.fileCount, job.tagCount)} on ${zone} failed${retried}.`
      : `:warning: ${user(actorId)} purged ${(total - failed.length).toLocaleString('en')} of ${total.toLocaleString('en')} on ${zone}${retried}; ${failed.length.toLocaleString('en')} failed.`;
  const retry: KnownBlock = {
    type: 'actions',
    block_id: `${PURGE_IDS.resultActions}_${index}`,
    elements: [
      {
        type: 'button',
        text: plain(`Retry the ${failed.length.toLocaleString('en')} that failed`),
        // One button per zone in a message, and action ids must differ.
        action_id: `${PURGE_IDS.retry}_${index}`,
        value: job.id,
        style: 'primary',
      },
    ],
  };
  if (!detailed) return [{ type: 'section', text: mrkdwn(headline) }, retry];
  const errors = [...new Set(report.results.flatMap((r) => (r.ok ? [] : [errorText(r.error)])))];
  const list = failed.slice(0, SHOWN).map((item) => `• ${code(truncate(item, 200))}`);
  if (failed.length > SHOWN) list.push(`…and ${(failed.length - SHOWN).toLocaleString('en')} more`);
  return [
    {
      type: 'section',
      text: mrkdwn(
        truncate(
          `${headline}
${errors.slice(0, 3).join('\n')}`,
          3000,
        ),
      ),
    },
    { type: 'section', text: mrkdwn(truncate(`*Not purged:*\n${list.join('\n')}`, 3000)) },
    retry,
  ];
}

export function purgeResultMessage(
  runs: PurgeRun[],
  actorId: string,
  options: { fromDefault?: boolean } = {},
): Message {
  const blocks = runs.flatMap((run, index) =>
    runBlocks(run, actorId, index, index < DETAILED_RUNS, options.fromDefault),
  );
  const requests = runs.reduce((sum, run) => sum + run.report.results.length, 0);
  const purgeIds = runs.flatMap((run) => run.job.purgeIds);
  const ids =
    purgeIds.length > 0
      ? ` · purge ids: ${purgeIds.slice(0, 5).map(code).join(', ')}${purgeIds.length > 5 ? '…' : ''}`
      : '';
  blocks.push({
    type: 'context',
    elements: [mrkdwn(`${requests} request${requests === 1 ? '' : 's'} to the CDN${ids}`)],
  });
  const failed = runs.reduce(
    (sum, run) => sum + run.job.failed.files.length + run.job.failed.tags.length,
    0,
  );
  const total = runs.reduce((sum, run) => sum + run.job.fileCount + run.job.tagCount, 0);
  const zones = runs.map((run) => escapeMrkdwn(run.job.zoneName)).join(', ');
  return {
    text:
      failed === 0
        ? `Purged ${total} item${total === 1 ? '' : 's'} on ${zones}`
        : `Purge on ${zones}: ${failed} of ${total} failed`,
    blocks,
  };
}

export function purgeRefusedMessage(plan: PurgePlan): Message {
  const lines = plan.rejected
    .slice(0, SHOWN)
    .map((r) => `• ${code(truncate(r.item, 200))}: ${escapeMrkdwn(r.reason)}`);
  if (plan.rejected.length > SHOWN) lines.push(`…and ${plan.rejected.length - SHOWN} more`);
  const text = `Nothing was purged: ${plan.rejected.length} item${plan.rejected.length === 1 ? ' was' : 's were'} refused.`;
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `:no_entry_sign: ${text} Fix ${plan.rejected.length === 1 ? 'it' : 'them'} and run the purge again.`,
        ),
      },
      { type: 'section', text: mrkdwn(truncate(lines.join('\n'), 3000)) },
    ],
  };
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
        element: zonePicker(options.zone),
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
    ],
  };
}

export function purgeEverythingModal(options: { zone: Zone; metadata: string }): ModalView {
  const name = escapeMrkdwn(options.zone.name);
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
          `:rotating_light: This empties the cache of *${name}* at every edge location. Until it refills, every request goes to the origin. A second person must approve it before it runs.`,
        ),
      },
      {
        type: 'input',
        block_id: PURGE_IDS.confirmBlock,
        label: plain(truncate(`Type ${options.zone.name} to confirm`, 2000)),
        element: {
          type: 'plain_text_input',
          action_id: PURGE_IDS.confirmInput,
          placeholder: plain(truncate(options.zone.name, 150)),
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
