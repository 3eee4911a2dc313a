// A channel's default zone (`/cdn use`) and the channels purges may be run from, in words.
import type { Zone } from '../cdn/schemas.js';
import type { ChannelDefault, ChannelsOverview } from '../services/channels.js';
import type { Message } from './message.js';
import { escapeMrkdwn, mrkdwn, slackDate, user } from './text.js';

/** What a default zone is for, said wherever one is set or shown. */
const WHAT_IT_DOES =
  '`/cdn purge /path…`, `/cdn purge tag:<tag>…`, `/cdn analytics` and `/cdn ratelimit on|off` here use it when no zone is named.';

/** Channel ids as Slack mentions (they render as #name for each reader). */
export function channelList(channelIds: readonly string[]): string {
  return channelIds.map((id) => `<#${id}>`).join(', ');
}

/** `/cdn use` alone: the channel's default zone, or that there is none. */
export function channelDefaultMessage(current: ChannelDefault): Message {
  switch (current.kind) {
    case 'none':
      return section(
        'This channel has no default zone.',
        `:information_source: This channel has no default zone. \`/cdn use <zone>\` sets one: ${WHAT_IT_DOES}`,
      );
    case 'stale':
      return section(
        `This channel's default zone ${current.zoneName} was dropped`,
        `:warning: This channel's default zone (*${escapeMrkdwn(current.zoneName)}*) was chosen before the workspace's CDN API key changed, so I dropped it. \`/cdn use <zone>\` sets a new one.`,
      );
    case 'set': {
      const { binding } = current;
      return section(
        `This channel's default zone is ${binding.zoneName}`,
        `:pushpin: This channel's default zone is *${escapeMrkdwn(binding.zoneName)}* (set by ${user(binding.setBy)} ${slackDate(binding.setAt)}). ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
      );
    }
  }
}

/** Said in the channel: everyone there is affected. */
export function channelBoundMessage(zone: Zone, actorId: string): Message {
  return section(
    `${zone.name} is now this channel's default zone`,
    `:pushpin: ${user(actorId)} made *${escapeMrkdwn(zone.name)}* this channel's default zone. ${WHAT_IT_DOES} \`/cdn use none\` clears it.`,
  );
}

export function channelUnboundMessage(actorId: string): Message {
  return section(
    "This channel's default zone was cleared",
    `:wastebasket: ${user(actorId)} cleared this channel's default zone. Commands here must name a zone again.`,
  );
}

/** The App Home's section: each channel's default, and where purges may be run. */
export function channelsOverviewText(overview: ChannelsOverview, shown = 20): string {
  const purging =
    overview.purgeChannels.length === 0
      ? '*Purges* may be run from any channel.'
      : `*Purges* may only be run in ${channelList(overview.purgeChannels)}.`;
  const defaults =
    overview.bindings.length === 0
      ? 'No channel has a default zone yet: `/cdn use <zone>` in a channel sets one.'
      : overview.bindings
          .slice(0, shown)
          .map((b) => `<#${b.channelId}> → *${escapeMrkdwn(b.zoneName)}*`)
          .join('\n');
  const more =
    overview.bindings.length > shown ? `\n…and ${overview.bindings.length - shown} more` : '';
  return `${purging}\n*Default zones:*\n${defaults}${more}`;
}

function section(text: string, body: string): Message {
  return { text: escapeMrkdwn(text), blocks: [{ type: 'section', text: mrkdwn(body) }] };
}
