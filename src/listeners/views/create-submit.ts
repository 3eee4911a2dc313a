// The onboarding form: the domain is checked inline; the zone is created after the form closes.
import { zoneCreatedMessage } from '../../blocks/create.js';
import { inlineErrorText } from '../../blocks/errors.js';
import { CREATE_IDS } from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { defined } from '../../objects.js';
import { onboardableDomain, ZONE_PLANS, type ZonePlan } from '../../services/zones/zones.js';
import { explainMessage } from '../../slack/explain.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function createSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    const domain = values[CREATE_IDS.domainBlock]?.[CREATE_IDS.domainInput]?.value ?? '';
    const selected =
      values[CREATE_IDS.planBlock]?.[CREATE_IDS.planInput]?.selected_option?.value ?? 'free';
    const plan: ZonePlan = (ZONE_PLANS as readonly string[]).includes(selected)
      ? (selected as ZonePlan)
      : 'free';

    // The account the form was opened for (none: a form from before accounts).
    const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
    const where = {
      ...defined('channelId', origin.channelId),
      ...defined('accountId', origin.accountId),
    };
    let ascii: string;
    try {
      ascii = onboardableDomain(domain);
      await deps.accountScopes.forCreate(caller, where);
      await deps.flood.take(caller.workspaceId, caller.userId);
    } catch (error) {
      return ack({
        response_action: 'errors',
        errors: { [CREATE_IDS.domainBlock]: inlineErrorText(error) },
      });
    }
    await ack();

    const created = await deps.accountScopes.create(caller, where, { domain: ascii, plan }).then(
      (result) => ({
        visibility: 'in_channel' as const,
        message: zoneCreatedMessage(result, {
          plan,
          actorId: caller.userId,
          cnameTarget: deps.edgeCnameTarget,
        }),
      }),
      (error: unknown) => ({
        visibility: 'ephemeral' as const,
        message: explainMessage(deps.logger, error, 'zone creation'),
      }),
    );
    await originTarget(client, origin, caller.userId, deps.logger, created.visibility).post(
      created.message,
    );
  };
}
