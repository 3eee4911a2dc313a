// /cdn purge: URLs, paths, tags, or everything (which needs a second person), or the form. A path,
// a tag or `everything` without a zone is for the channel's default zone; full URLs alone find
// their zones by host name. Where purges are limited to some channels, only those may ask. URLs the
// zone named does not serve are refused, and the rest is purged only once the person confirms.
import { noticeMessage } from '../../blocks/errors.js';
import { purgeEverythingModal, purgeFormModal, purgeRefusedMessage } from '../../blocks/purge.js';
import { purgeHoldMessage } from '../../blocks/purge-hold.js';
import { AppError } from '../../errors.js';
import { parsePurgeArgs } from '../../services/purge-targets.js';
import type { Zone } from '../../services/zones.js';
import { commandOrigin, encodeOrigin, replyTo, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn purge <zone> <url|/path>…`, `/cdn purge <url>…`, `/cdn purge <zone> tag:<tag>…`, `/cdn purge <zone> everything`, or `/cdn purge` for a form. With a default zone (`/cdn use <zone>`), the zone may be left out: `/cdn purge /assets/app.css`.';

export const purge: SubcommandHandler = async (context) => {
  const { args, deps, caller, command, respond, client } = context;
  const parsed = parsePurgeArgs(args);
  await deps.access.requireOperator(caller, 'purge');
  await deps.channels.requirePurgeChannel(caller.workspaceId, command.channel_id);
  const origin = commandOrigin(command);
  const { workspaceId } = caller;
  const channelDefault = () => deps.channels.defaultZone(workspaceId, command.channel_id, 'purge');

  if (parsed.kind === 'form') {
    const zone =
      parsed.zone === undefined
        ? await channelDefault().catch((error: unknown) => {
            // The form opens all the same, with no zone picked, when there is no usable default.
            if (error instanceof AppError) return undefined;
            throw error;
          })
        : await deps.zones.resolve(workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeFormModal({ metadata: encodeOrigin(origin), ...(zone ? { zone } : {}) }),
    });
    return;
  }
  if (parsed.kind === 'everything') {
    const zone =
      parsed.zone === undefined
        ? await channelDefault()
        : await deps.zones.resolve(workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeEverythingModal({ zone, metadata: encodeOrigin({ ...origin, zoneId: zone.id }) }),
    });
    return;
  }
  // Paths and tags name no host: without a zone, they are the channel's default zone's.
  const needsZone =
    parsed.zone === undefined && ((parsed.paths?.length ?? 0) > 0 || parsed.tags.length > 0);
  const chosen: Zone | undefined = needsZone ? await channelDefault() : undefined;
  const plan = await deps.purges.plan(workspaceId, parsed, chosen);
  if (plan.rejected.length > 0) {
    await respond(purgeRefusedMessage(plan));
    return;
  }
  if (plan.groups.length === 0) {
    await respond(noticeMessage(USAGE));
    return;
  }
  // URLs the zone named does not serve: refused, and the rest waits for the person's word.
  if (plan.elsewhere.length > 0) {
    const held = await deps.purgeHolds.hold(workspaceId, plan, caller.userId, {
      ...(chosen ? { fromDefault: true } : {}),
    });
    await respond(purgeHoldMessage(held));
    return;
  }
  await deps.flood.take(workspaceId, caller.userId);
  await deps.purges.start(
    workspaceId,
    plan.groups,
    caller.userId,
    replyTo(origin, caller.userId, deps.clock.now()),
    chosen ? { fromDefault: true } : {},
  );
};
