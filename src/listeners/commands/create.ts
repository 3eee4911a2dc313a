// /cdn create <domain> [plan], or /cdn create alone for the form.
import { createModal, zoneCreatedMessage } from '../../blocks/create.js';
import { noticeMessage } from '../../blocks/errors.js';
import { code } from '../../blocks/text.js';
import { ZONE_PLANS, type ZonePlan } from '../../cdn/schemas.js';
import { onboardableDomain } from '../../services/zones.js';
import { encodeOrigin, requireOperatorIn, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn create <domain> [free|pro|business|enterprise]`, or `/cdn create` for a form.';

export const create: SubcommandHandler = async (context) => {
  const { args, deps, workspaceId, command, respond, client } = context;
  if (args.length > 2) {
    await respond(noticeMessage(USAGE));
    return;
  }
  const [domain, planWord] = args;
  // The spec gives no default plan, so one is always sent: free unless the user names another.
  const plan = (planWord?.toLowerCase() ?? 'free') as ZonePlan;
  if (!ZONE_PLANS.includes(plan)) {
    await respond(noticeMessage(`${code(planWord ?? '')} is not a plan. ${USAGE}`));
    return;
  }
  await requireOperatorIn(context, command.user_id, 'onboard domains');
  if (domain === undefined) {
    await client.views.open({
      trigger_id: command.trigger_id,
      view: createModal(
        encodeOrigin({ channelId: command.channel_id, responseUrl: command.response_url }),
      ),
    });
    return;
  }
  // A malformed domain is refused before it counts against the user's limit.
  onboardableDomain(domain);
  await deps.flood.take(workspaceId, command.user_id);
  const result = await deps.zones.create(workspaceId, { domain, plan, actorId: command.user_id });
  await respond({
    response_type: 'in_channel',
    ...zoneCreatedMessage(result, {
      plan,
      actorId: command.user_id,
      cnameTarget: deps.edgeCnameTarget,
    }),
  });
};
