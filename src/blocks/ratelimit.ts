// The rate-limit change: said at once, then updated when every edge has it; and a zone's state
// with On and Off buttons.
import type { Zone } from '../cdn/schemas.js';
import type { RateLimitState } from '../services/zones/ratelimit.js';
import { zoneLabel } from '../zone-names.js';
import { RATELIMIT_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { md, mrkdwn, plain, slackDate, user } from './text.js';

/** `/cdn ratelimit <zone>`: the state the bot last set (the CDN cannot be asked), and buttons. */
export function rateLimitStateMessage({ zone, last }: RateLimitState): Message {
  const state = last
    ? md`Rate limiting is *${last.enabled ? 'on' : 'off'}* for *${zoneLabel(zone.name)}*: ${user(last.actorId)} turned it ${last.enabled ? 'on' : 'off'} ${slackDate(last.at)}.`
    : md`Rate limiting for *${zoneLabel(zone.name)}* has not been changed through this bot, so its state is the CDN's default.`;
  const button = (enabled: boolean) => ({
    type: 'button' as const,
    action_id: enabled ? RATELIMIT_IDS.on : RATELIMIT_IDS.off,
    text: plain(enabled ? 'On' : 'Off'),
    // `<account>/<zone id>` when the account's name is known.
    value: zone.accountName !== undefined ? `${zone.accountName}/${zone.id}` : zone.id,
  });
  return message(
    md`Rate limiting for ${zoneLabel(zone.name)}: ${last ? (last.enabled ? 'on' : 'off') : 'not changed by this bot'}`,
    [
      { type: 'section', text: mrkdwn(state) },
      {
        type: 'actions',
        block_id: RATELIMIT_IDS.actionsBlock,
        elements: [button(true), button(false)],
      },
    ],
  );
}

export function rateLimitMessage(options: {
  zone: Zone;
  enabled: boolean;
  actorId: string;
  /** Set once the propagation time has passed. */
  propagatedAt?: number;
  /** The zone was the channel's default, not named. */
  fromDefault?: boolean;
}): Message {
  const state = options.enabled ? 'on' : 'off';
  const change = md`${user(options.actorId)} turned rate limiting *${state}* for *${zoneLabel(options.zone.name)}*${options.fromDefault ? " (this channel's default)" : ''}.`;
  const text =
    options.propagatedAt === undefined
      ? md`:hourglass_flowing_sand: ${change} Propagating to every edge location (up to 30 s)…`
      : md`:white_check_mark: ${change} In effect at every edge location since ${slackDate(options.propagatedAt, '{time}')}.`;
  return message(
    md`Rate limiting ${state} for ${zoneLabel(options.zone.name)}${options.propagatedAt === undefined ? ' (propagating, up to 30 s)' : ' (in effect everywhere)'}`,
    [{ type: 'section', text: mrkdwn(text) }],
  );
}
