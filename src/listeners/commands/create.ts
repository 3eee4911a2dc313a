// /cdn create <domain> [plan], or /cdn create alone for the form.
import { createModal, zoneCreatedMessage } from '../../blocks/create.js';
import { noticeMessage } from '../../blocks/errors.js';
import { code, md } from '../../blocks/text.js';
import { onboardableDomain, ZONE_PLANS, type ZonePlan } from '../../services/zones/zones.js';
import { accountWords } from './account-words.js';
import { commandOrigin, encodeOrigin, type SubcommandHandler } from './context.js';

const USAGE =
  'Usage: `/cdn create <domain> [free|pro|business|enterprise]`, or `/cdn create` for a form.';

export const create: SubcommandHandler = async (context) => {
  const { deps, caller, command, respond, client } = context;
  const { args, account } = accountWords(context);
  if (args.length > 2) {
    await respond(noticeMessage(USAGE));
    return;
  }
  const [domain, planWord] = args;
  // The spec gives no default plan, so one is always sent: free unless the user names another.
  const plan = (planWord?.toLowerCase() ?? 'free') as ZonePlan;
  if (!ZONE_PLANS.includes(plan)) {
    await respond(noticeMessage(md`${code(planWord ?? '')} is not a plan. ${USAGE}`));
    return;
  }
  const where = { channelId: command.channel_id, ...(account === undefined ? {} : { account }) };
  // The account chosen now (the channel's, the one typed, the only one), for its operators only.
  const chosen = await deps.accountScopes.forCreate(caller, where);
  if (domain === undefined) {
    // The form creates in that account.
    const origin = commandOrigin(command);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: createModal(
        encodeOrigin(chosen.account ? { ...origin, accountId: chosen.account.id } : origin),
      ),
    });
    return;
  }
  // A malformed domain is refused before it counts against the user's limit.
  onboardableDomain(domain);
  await deps.flood.take(caller.workspaceId, caller.userId);
  const result = await deps.accountScopes.create(caller, where, { domain, plan });
  await respond({
    response_type: 'in_channel',
    ...zoneCreatedMessage(result, {
      plan,
      actorId: caller.userId,
      cnameTarget: deps.edgeCnameTarget,
    }),
  });
};
