// A channel's default zone (`/cdn use`) and the channels purges may be run from, in words.
import type { Zone } from '../cdn/schemas.js';
import type {
  AccountBinding,
  ChannelDefault,
  ChannelsOverview,
} from '../services/access/channels.js';
import { zoneLabel } from '../zone-names.js';
import { summarise } from './fit.js';
import { type Message, message } from './message.js';
import {
  channel,
  clip,
  code,
  MAX_SENTENCE,
  type Mrkdwn,
  md,
  mrkdwn,
  slackDate,
  user,
} from './text.js';

/** What a default zone is for, said wherever one is set or shown. */
const WHAT_IT_DOES = md`\`/cdn purge /path…\`, \`/cdn purge tag:<tag>…\`, \`/cdn analytics\` and \`/cdn ratelimit on|off\` here use it when no zone is named.`;

/** Channel ids as Slack mentions (they render as #name for each reader), at most `shown`. */
export function channelList(channelIds: readonly string[], shown = 20): Mrkdwn {
  return summarise(channelIds, shown, channel, ', ');
}

/**
 * Every zone command's answer in a channel bound to a CDN account that was removed, and `/cdn use`
 * alone's there: one line, saying how to bind it again or unbind it.
 */
export function channelAccountRemoved(account: string | undefined, refused = true): Mrkdwn {
  const named = account === undefined ? md`a CDN account` : md`the CDN account ${code(account)}`;
  const so = refused ? md`so nothing was done` : md`so its zone commands are refused`;
  return md`This channel was bound to ${named}, which was removed, ${so}. Bind it again with \`/cdn use <account>/[zone]\` or \`/cdn use <zone>\`, or unbind it with \`/cdn use none\`.`;
}

/** `/cdn use` alone: the channel's default zone, or that there is none. */
export function channelDefaultMessage(current: ChannelDefault): Message {
  switch (current.kind) {
    case 'none':
      return section(
        md`This channel has no default zone.`,
        md`:information_source: This channel has no default zone. \`/cdn use <zone>\` sets one: ${WHAT_IT_DOES}`,
      );
    case 'removed':
      return section(
        md`This channel's CDN account was removed`,
        md`:warning: ${channelAccountRemoved(current.account, false)}`,
      );
    case 'stale':
      if (current.account !== undefined)
        return section(
          md`This channel's CDN account ${current.account} was dropped`,
          md`:warning: This channel's CDN account ${code(current.account)}${current.zoneName ? md` and default zone *${zoneLabel(current.zoneName)}*` : md``} were chosen before that account's API key changed, so I dropped them. \`/cdn use <account>/[zone]\` sets them again.`,
        );
      return section(
        md`This channel's default zone ${zoneLabel(current.zoneName)} was dropped`,
        md`:warning: This channel's default zone (*${zoneLabel(current.zoneName)}*) was chosen before the workspace's CDN API key changed, so I dropped it. \`/cdn use <zone>\` sets a new one.`,
      );
    case 'set': {
      const { binding } = current;
      if (current.account !== undefined && !binding.zoneName)
        return section(
          md`This channel uses the CDN account ${current.account}`,
          md`:pushpin: This channel uses the CDN account ${code(current.account)} only (set by ${user(binding.setBy)} ${slackDate(binding.setAt)}); it has no default zone. \`/cdn use ${current.account}/<zone>\` sets one, \`/cdn use none\` clears it.`,
        );
      if (current.account !== undefined)
        return section(
          md`This channel's default zone is ${zoneLabel(binding.zoneName)} in ${current.account}`,
          md`:pushpin: This channel uses the CDN account ${code(current.account)}, and its default zone is *${zoneLabel(binding.zoneName)}* (set by ${user(binding.setBy)} ${slackDate(binding.setAt)}). ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
        );
      return section(
        md`This channel's default zone is ${zoneLabel(binding.zoneName)}`,
        md`:pushpin: This channel's default zone is *${zoneLabel(binding.zoneName)}* (set by ${user(binding.setBy)} ${slackDate(binding.setAt)}). ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
      );
    }
  }
}

/** Said in the channel: everyone there is affected. */
export function channelBoundMessage(zone: Zone, actorId: string): Message {
  return section(
    md`${zoneLabel(zone.name)} is now this channel's default zone`,
    md`:pushpin: ${user(actorId)} made *${zoneLabel(zone.name)}* this channel's default zone. ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
  );
}

/** Said in the channel: `/cdn use <account>/[zone]` bound it to a CDN account. */
export function channelAccountBoundMessage(bound: AccountBinding, actorId: string): Message {
  return bound.zone
    ? section(
        md`${zoneLabel(bound.zone.name)} in ${bound.account} is now this channel's default zone`,
        md`:pushpin: ${user(actorId)} bound this channel to the CDN account ${code(bound.account)}, with *${zoneLabel(bound.zone.name)}* as its default zone. Commands here use that account only. ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
      )
    : section(
        md`This channel now uses the CDN account ${bound.account}`,
        md`:pushpin: ${user(actorId)} bound this channel to the CDN account ${code(bound.account)}: commands here use that account only. \`/cdn use none\` clears it.`,
      );
}

export function channelUnboundMessage(actorId: string): Message {
  return section(
    md`This channel's default zone was cleared`,
    md`:wastebasket: ${user(actorId)} cleared this channel's default zone. Commands here must name a zone again.`,
  );
}

/** The App Home's section: each channel's default, and where purges may be run. */
export function channelsOverviewText(overview: ChannelsOverview, shown = 20): Mrkdwn {
  const hidden = overview.hidden ?? { bindings: 0, purgeChannels: 0 };
  const purging =
    overview.purgeChannels.length === 0 && hidden.purgeChannels === 0
      ? md`*Purges* may be run from any channel.`
      : md`*Purges* may only be run in ${purgeChannelsText(overview.purgeChannels, hidden.purgeChannels)}.`;
  const others = elsewhere(hidden.bindings);
  const defaults =
    overview.bindings.length === 0 && hidden.bindings === 0
      ? md`No channel has a default zone yet: \`/cdn use <zone>\` in a channel sets one.`
      : summarise(
          overview.bindings,
          shown,
          (b) => md`${channel(b.channelId)} → *${zoneLabel(b.zoneName)}*`,
        );
  return clip(
    md`${purging}\n*Default zones:*\n${defaults}${others ? md`\n${others}` : ''}`,
    MAX_SENTENCE,
  );
}

/** "N conversations you are not in", or nothing when there are none. */
function elsewhere(hidden: number): Mrkdwn | undefined {
  if (hidden <= 0) return undefined;
  return md`${hidden.toLocaleString('en')} more in conversations you are not in (not shown to you)`;
}

/**
 * The purge channels the reader may see, and how many others there are ("#ops and 2 conversations
 * you are not in").
 */
export function purgeChannelsText(channelIds: readonly string[], hidden = 0): Mrkdwn {
  const others =
    hidden > 0
      ? md`${hidden.toLocaleString('en')} conversation${hidden === 1 ? '' : 's'} you are not in`
      : undefined;
  if (channelIds.length === 0) return others ?? md``;
  return others ? md`${channelList(channelIds)} and ${others}` : channelList(channelIds);
}

function section(text: Mrkdwn, body: Mrkdwn): Message {
  return message(text, [{ type: 'section', text: mrkdwn(body) }]);
}
