// /cdn purge: URLs, tags, or everything (which needs a second person), or the form.
import { noticeMessage } from '../../blocks/errors.js';
import { purgeEverythingModal, purgeFormModal, purgeRefusedMessage } from '../../blocks/purge.js';
import { parsePurgeArgs } from '../../services/purge-targets.js';
import { commandOrigin, encodeOrigin, replyTo, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn purge <zone> <url>…`, `/cdn purge <url>…`, `/cdn purge <zone> tag:<tag>…`, `/cdn purge <zone> everything`, or `/cdn purge` for a form.';

export const purge: SubcommandHandler = async (context) => {
  const { args, deps, caller, command, respond, client } = context;
  const parsed = parsePurgeArgs(args);
  await deps.access.requireOperator(caller, 'purge');
  const origin = commandOrigin(command);

  if (parsed.kind === 'form') {
    const zone =
      parsed.zone === undefined
        ? undefined
        : await deps.zones.resolve(caller.workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeFormModal({ metadata: encodeOrigin(origin), ...(zone ? { zone } : {}) }),
    });
    return;
  }
  if (parsed.kind === 'everything') {
    const zone = await deps.zones.resolve(caller.workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeEverythingModal({ zone, metadata: encodeOrigin({ ...origin, zoneId: zone.id }) }),
    });
    return;
  }
  const plan = await deps.purges.plan(caller.workspaceId, parsed);
  if (plan.rejected.length > 0) {
    await respond(purgeRefusedMessage(plan));
    return;
  }
  if (plan.groups.length === 0) {
    await respond(noticeMessage(USAGE));
    return;
  }
  await deps.flood.take(caller.workspaceId, caller.userId);
  await deps.purges.start(
    caller.workspaceId,
    plan.groups,
    caller.userId,
    replyTo(origin, caller.userId, deps.clock.now()),
  );
};
