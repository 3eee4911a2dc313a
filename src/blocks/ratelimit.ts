// The rate-limit change: said at once, then updated when every edge has it.
import type { Zone } from '../cdn/schemas.js';
import { type Message, message } from './message.js';
import { md, mrkdwn, slackDate, user } from './text.js';

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
  const change = md`${user(options.actorId)} turned rate limiting *${state}* for *${options.zone.name}*${options.fromDefault ? " (this channel's default)" : ''}.`;
  const text =
    options.propagatedAt === undefined
      ? md`:hourglass_flowing_sand: ${change} Propagating to every edge location (up to 30 s)…`
      : md`:white_check_mark: ${change} In effect at every edge location since ${slackDate(options.propagatedAt, '{time}')}.`;
  return message(
    md`Rate limiting ${state} for ${options.zone.name}${options.propagatedAt === undefined ? ' (propagating, up to 30 s)' : ' (in effect everywhere)'}`,
    [{ type: 'section', text: mrkdwn(text) }],
  );
}
