// The purge-everything request as the channel sees it, in each of its states, and its two modals.
import type { KnownBlock, ModalView } from '@slack/types';
import type { Approval } from '../store/approvals.js';
import { APPROVAL_IDS } from './ids.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn, plain, slackDate, truncate, user } from './text.js';

function quote(text: string): string {
  return truncate(escapeMrkdwn(text), 1_500)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

export function approvalMessage(
  approval: Approval,
  details: { cacheHitRate?: number; purging?: boolean } = {},
): Message {
  const name = escapeMrkdwn(approval.zoneName);
  const zone = `*${name}*`;
  const who = `${user(approval.requesterId)} asked to purge everything on ${zone}:\n${quote(approval.reason)}`;
  const decider = approval.decidedBy ? user(approval.decidedBy) : 'someone';
  let status: string;
  let text: string;
  const pending = approval.status === 'pending' && !details.purging;
  if (details.purging) {
    status = `:hourglass_flowing_sand: Approved by ${decider}. Purging everything…`;
    text = `Purging everything on ${name}`;
  } else if (approval.status === 'pending') {
    status = `Waiting for a second person. Expires ${slackDate(approval.expiresAt, '{time}')}.`;
    text = `Purge everything on ${name}? Approval needed`;
  } else if (approval.status === 'approved' && approval.outcome === 'succeeded') {
    status = `:white_check_mark: Approved by ${decider}; everything on ${zone} was purged${approval.purgeId ? ` (purge id ${code(approval.purgeId)})` : ''}.`;
    text = `Everything on ${name} was purged`;
  } else if (approval.status === 'approved' && approval.outcome === 'failed') {
    status = `:x: Approved by ${decider}, but the purge failed: ${escapeMrkdwn(approval.outcomeDetail ?? 'unknown error')}. Nothing more will run; ask again with \`/cdn purge ${escapeMrkdwn(approval.zoneName)} everything\`.`;
    text = `Purge everything on ${name} failed`;
  } else if (approval.status === 'approved' && approval.outcome === 'unknown') {
    // Never "failed, ask again": the CDN may well have purged.
    status = `:grey_question: Approved by ${decider}, but the CDN did not confirm the purge (${escapeMrkdwn(approval.outcomeDetail ?? 'no answer')}); it may already have purged everything. Check the zone before purging again: that takes a new request and a fresh approval (\`/cdn purge ${escapeMrkdwn(approval.zoneName)} everything\`).`;
    text = `Purge everything on ${name}: the CDN did not confirm`;
  } else if (approval.status === 'approved') {
    status = `:hourglass_flowing_sand: Approved by ${decider}. Purging everything…`;
    text = `Purging everything on ${name}`;
  } else if (approval.status === 'denied') {
    status = `:no_entry: Denied by ${decider}${approval.decisionNote ? `:\n${quote(approval.decisionNote)}` : '.'}`;
    text = `Purge everything on ${name} was denied`;
  } else if (approval.status === 'cancelled') {
    status = ':heavy_multiplication_x: Cancelled by the requester.';
    text = `Purge everything on ${name} was cancelled`;
  } else {
    status = ':hourglass: Expired: nobody approved it in time. Nothing was purged.';
    text = `Purge everything on ${name} expired`;
  }

  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(truncate(`Purge everything on ${approval.zoneName}?`, 150)) },
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
            `Cache hit rate over the last 24 h: *${rate}*. After a full purge it starts from zero.`,
          ),
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
          {
            type: 'button',
            text: plain('Cancel request'),
            action_id: APPROVAL_IDS.cancel,
            value: approval.id,
          },
        ],
      },
    );
  }
  return { text, blocks };
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
          `Purge *everything* on *${escapeMrkdwn(approval.zoneName)}* now, at every edge location?\n${user(approval.requesterId)} asked for it:\n${quote(approval.reason)}`,
        ),
      },
      {
        type: 'context',
        elements: [
          mrkdwn(
            'It runs once, as soon as you confirm. The origin will take the full load until the cache refills.',
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
          `Deny ${user(approval.requesterId)}'s request to purge everything on *${escapeMrkdwn(approval.zoneName)}*.`,
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
