// The purge-everything request as the channel sees it, in each of its states, and its two modals.
import type { KnownBlock, ModalView } from '@slack/types';
import type { Approval } from '../store/approvals.js';
import { zoneLabel } from '../zone-names.js';
import { actorLabel, actorMappingNote, requesterLabel } from './actors.js';
import { APPROVAL_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { clip, code, type Mrkdwn, md, mrkdwn, plain, quote, slackDate } from './text.js';

/**
 * " in the CDN account `staging`" for a request whose zone's account was recorded (asked
 * in a workspace with several accounts, or over the HTTP API); nothing otherwise.
 */
function inAccount(approval: Pick<Approval, 'api' | 'accountName'>): Mrkdwn | '' {
  const account = approval.accountName ?? approval.api?.account;
  return account ? md` in the CDN account ${code(account)}` : '';
}

/** What a person wrote, quoted, within room for the rest of the section. */
const quoted = (text: string) => quote(clip(md`${text}`, 1_500));

export function approvalMessage(
  approval: Approval,
  details: { cacheHitRate?: number; purging?: boolean } = {},
): Message {
  const name = zoneLabel(approval.zoneName);
  const zone = md`*${name}*`;
  const who = md`${requesterLabel(approval)} asked to purge everything on ${zone}${inAccount(approval)}:\n${quoted(approval.reason)}`;
  const decider = approval.decidedBy ? actorLabel(approval.decidedBy) : 'someone';
  const again = code(`/cdn purge ${approval.zoneName} everything`);
  let status: Mrkdwn;
  let text: Mrkdwn;
  const pending = approval.status === 'pending' && !details.purging;
  if (details.purging) {
    status = md`:hourglass_flowing_sand: Approved by ${decider}. Purging everything…`;
    text = md`Purging everything on ${name}`;
  } else if (approval.status === 'pending' && approval.notBefore !== undefined) {
    status = md`:calendar: Scheduled for ${slackDate(approval.notBefore, '{date_short_pretty} {time}')}. Waiting for a second person: unapproved by then, it does not run.`;
    text = md`Purge everything on ${name} at a later time? Approval needed`;
  } else if (approval.status === 'pending') {
    status = md`Waiting for a second person. Expires ${slackDate(approval.expiresAt, '{time}')}.`;
    text = md`Purge everything on ${name}? Approval needed`;
  } else if (approval.status === 'approved' && approval.outcome === 'succeeded') {
    status = md`:white_check_mark: Approved by ${decider}; everything on ${zone} was purged${approval.purgeId ? md` (purge id ${code(approval.purgeId)})` : ''}.`;
    text = md`Everything on ${name} was purged`;
  } else if (approval.status === 'approved' && approval.outcome === 'failed') {
    status = md`:x: Approved by ${decider}, but the purge failed: ${approval.outcomeDetail ?? 'unknown error'}. Nothing more will run; ask again with ${again}.`;
    text = md`Purge everything on ${name} failed`;
  } else if (approval.status === 'approved' && approval.outcome === 'unknown') {
    // Never "failed, ask again": the CDN may well have purged.
    status = md`:grey_question: Approved by ${decider}, but the CDN did not confirm the purge (${approval.outcomeDetail ?? 'no answer'}); it may already have purged everything. Check the zone before purging again: that takes a new request and a fresh approval (${again}).`;
    text = md`Purge everything on ${name}: the CDN did not confirm`;
  } else if (approval.status === 'approved' && approval.notBefore !== undefined) {
    status = md`:calendar: Approved by ${decider}. Runs ${slackDate(approval.notBefore, '{date_short_pretty} {time}')}, if the requester may still purge then.`;
    text = md`Purge everything on ${name}: approved, scheduled`;
  } else if (approval.status === 'approved') {
    status = md`:hourglass_flowing_sand: Approved by ${decider}. Purging everything…`;
    text = md`Purging everything on ${name}`;
  } else if (approval.status === 'denied') {
    status = md`:no_entry: Denied by ${decider}${approval.decisionNote ? md`:\n${quoted(approval.decisionNote)}` : '.'}`;
    text = md`Purge everything on ${name} was denied`;
  } else if (approval.status === 'cancelled' && approval.accountRemoved) {
    const account = approval.accountName ?? approval.api?.account;
    status = md`:heavy_multiplication_x: Cancelled: the CDN account${account ? md` ${code(account)}` : ''} was removed by ${decider}. Nothing was purged.`;
    text = md`Purge everything on ${name} was cancelled`;
  } else if (approval.status === 'cancelled') {
    status = md`:heavy_multiplication_x: Cancelled by the requester.`;
    text = md`Purge everything on ${name} was cancelled`;
  } else {
    status = md`:hourglass: Expired: nobody approved it in time. Nothing was purged.`;
    text = md`Purge everything on ${name} expired`;
  }

  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(`Purge everything on ${zoneLabel(approval.zoneName)}?`, 150) },
    { type: 'section', text: mrkdwn(who) },
    { type: 'section', text: mrkdwn(status) },
  ];
  if (pending) {
    const rate =
      details.cacheHitRate === undefined
        ? 'unknown'
        : `${(details.cacheHitRate * 100).toFixed(1)} %`;
    blocks.push(
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`Cache hit rate over the last 24 h: *${rate}*. After a full purge it starts from zero.`,
          ),
          ...(approval.api ? [mrkdwn(actorMappingNote(approval.api))] : []),
        ],
      },
      {
        type: 'actions',
        block_id: APPROVAL_IDS.actionsBlock,
        elements: [
          {
            type: 'button',
            text: plain('Approve…'),
            style: 'primary',
            action_id: APPROVAL_IDS.approve,
            value: approval.id,
          },
          {
            type: 'button',
            text: plain('Deny…'),
            style: 'danger',
            action_id: APPROVAL_IDS.deny,
            value: approval.id,
          },
          // A token cannot click: a request made over the API is approved, denied or expires.
          ...(approval.api
            ? []
            : [
                {
                  type: 'button' as const,
                  text: plain('Cancel request'),
                  action_id: APPROVAL_IDS.cancel,
                  value: approval.id,
                },
              ]),
        ],
      },
    );
  }
  return message(text, blocks);
}

export function approveModal(approval: Approval): ModalView {
  return {
    type: 'modal',
    callback_id: APPROVAL_IDS.approveCallback,
    title: plain('Approve the purge'),
    submit: plain('Purge everything'),
    close: plain('Not now'),
    private_metadata: approval.id,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`Purge *everything* on *${zoneLabel(approval.zoneName)}*${inAccount(approval)} now, at every edge location?\n${requesterLabel(approval)} asked for it:\n${quoted(approval.reason)}`,
        ),
      },
      {
        type: 'context',
        elements: [
          mrkdwn(
            md`It runs once, as soon as you confirm. The origin will take the full load until the cache refills.`,
          ),
        ],
      },
    ],
  };
}

export function denyModal(approval: Approval): ModalView {
  return {
    type: 'modal',
    callback_id: APPROVAL_IDS.denyCallback,
    title: plain('Deny the purge'),
    submit: plain('Deny'),
    close: plain('Back'),
    private_metadata: approval.id,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`Deny the request of ${requesterLabel(approval)} to purge everything on *${zoneLabel(approval.zoneName)}*.`,
        ),
      },
      {
        type: 'input',
        block_id: APPROVAL_IDS.denyReasonBlock,
        label: plain('Why?'),
        hint: plain('Posted with the request and kept in the audit log.'),
        element: {
          type: 'plain_text_input',
          action_id: APPROVAL_IDS.denyReasonInput,
          multiline: true,
          max_length: 500,
        },
      },
    ],
  };
}
