// Onboarding a domain: the form, and the result with the CNAME record to set.
import type { KnownBlock, ModalView } from '@slack/types';
import type { CreateZoneResult } from '../cdn/client.js';
import { ZONE_PLANS, type ZonePlan } from '../cdn/schemas.js';
import { zoneLabel } from '../zone-names.js';
import { CREATE_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, join, md, mrkdwn, plain, user } from './text.js';
import { notifyLiveButton } from './watches.js';
import { statusLabel } from './zones.js';

const planOption = (plan: ZonePlan) => ({
  text: plain(plan[0]?.toUpperCase() + plan.slice(1)),
  value: plan,
});

export function createModal(metadata: string): ModalView {
  return {
    type: 'modal',
    callback_id: CREATE_IDS.callback,
    title: plain('Onboard a domain'),
    submit: plain('Create zone'),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks: [
      {
        type: 'input',
        block_id: CREATE_IDS.domainBlock,
        label: plain('Domain'),
        hint: plain('The domain alone: no https://, no path. Internationalized names are fine.'),
        element: {
          type: 'plain_text_input',
          action_id: CREATE_IDS.domainInput,
          placeholder: plain('shop.example.com'),
          max_length: 253,
        },
      },
      {
        type: 'input',
        block_id: CREATE_IDS.planBlock,
        label: plain('Plan'),
        element: {
          type: 'static_select',
          action_id: CREATE_IDS.planInput,
          options: ZONE_PLANS.map(planOption),
          initial_option: planOption('free'),
        },
      },
    ],
  };
}

/** The DNS record, as a zone-file line anyone can paste into a DNS provider. */
export function cnameRecord(name: string, target: string): string {
  return `${name}.  CNAME  ${target}.`;
}

export function zoneCreatedMessage(
  result: CreateZoneResult & { name: string },
  options: { plan: ZonePlan; actorId: string; cnameTarget: string },
): Message {
  const name = zoneLabel(result.name);
  const headline =
    result.kind === 'created'
      ? md`:white_check_mark: ${user(options.actorId)} onboarded *${name}* on the ${options.plan} plan. Status: ${statusLabel(result.zone.status)}`
      : md`:white_check_mark: ${user(options.actorId)} asked the CDN to onboard *${name}* (${options.plan} plan). The CDN accepted it; it will show in \`/cdn zones\` shortly.`;
  const apex = result.name.split('.').length === 2;
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(headline) },
    {
      type: 'section',
      text: mrkdwn(
        md`Point the domain at the CDN with this DNS record:\n\`\`\`${cnameRecord(result.name, options.cnameTarget)}\`\`\``,
      ),
    },
    {
      type: 'context',
      elements: [
        mrkdwn(
          join(
            [
              ...(result.kind === 'created' ? [md`Zone id ${code(result.zone.id)}`] : []),
              'The zone turns active once the record resolves.',
              ...(apex
                ? [
                    'At the apex of a domain, use your DNS provider’s ALIAS/ANAME or CNAME flattening.',
                  ]
                : []),
            ],
            ' · ',
          ),
        ),
      ],
    },
  ];
  // Onboarding ends with a notice in the channel instead of someone polling.
  if (result.kind !== 'created' || result.zone.status === 'pending')
    blocks.push(notifyLiveButton(result.kind === 'created' ? result.zone.id : result.name));
  return message(
    md`${name} onboarded: set ${cnameRecord(result.name, options.cnameTarget)}`,
    blocks,
  );
}
