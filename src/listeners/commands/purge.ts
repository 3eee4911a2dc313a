// /cdn purge: URLs, tags, or everything (which needs a second person), or the form.
import { noticeMessage } from '../../blocks/errors.js';
import { purgeEverythingModal, purgeFormModal, purgeRefusedMessage } from '../../blocks/purge.js';
import { parsePurgeArgs } from '../../services/purge-targets.js';
import { respondTarget } from '../../slack/message-target.js';
import { runPurges } from '../purge-run.js';
import { encodeOrigin, requireOperatorIn, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn purge <zone> <url>…`, `/cdn purge <url>…`, `/cdn purge <zone> tag:<tag>…`, `/cdn purge <zone> everything`, or `/cdn purge` for a form.';

export const purge: SubcommandHandler = async (context) => {
  const { args, deps, workspaceId, command, respond, client } = context;
  const parsed = parsePurgeArgs(args);
  await requireOperatorIn(context, command.user_id, 'purge cached content');
  const origin = { channelId: command.channel_id, responseUrl: command.response_url };

  if (parsed.kind === 'form') {
    const zone =
      parsed.zone === undefined ? undefined : await deps.zones.resolve(workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeFormModal({ metadata: encodeOrigin(origin), ...(zone ? { zone } : {}) }),
    });
    return;
  }
  if (parsed.kind === 'everything') {
    const zone = await deps.zones.resolve(workspaceId, parsed.zone);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeEverythingModal({ zone, metadata: encodeOrigin({ ...origin, zoneId: zone.id }) }),
    });
    return;
  }
  const plan = await deps.purges.plan(workspaceId, parsed);
  if (plan.rejected.length > 0) {
    await respond(purgeRefusedMessage(plan));
    return;
  }
  if (plan.groups.length === 0) {
    await respond(noticeMessage(USAGE));
    return;
  }
  await deps.flood.take(workspaceId, command.user_id);
  await runPurges(
    deps,
    workspaceId,
    plan.groups,
    command.user_id,
    respondTarget(respond, 'in_channel'),
  );
};
