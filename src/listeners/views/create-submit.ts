// The onboarding form: the domain is checked inline; the zone is created after the form closes.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { zoneCreatedMessage } from '../../blocks/create.js';
import { errorMessage, errorText } from '../../blocks/errors.js';
import { CREATE_IDS } from '../../blocks/ids.js';
import { checkHostname } from '../../cdn/hostname.js';
import { ZONE_PLANS, type ZonePlan } from '../../cdn/schemas.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin, requireOperatorIn, workspaceOf } from '../commands/context.js';

export function createSubmit(deps: AppDeps) {
  return async ({
    ack,
    body,
    view,
    client,
    context,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const workspaceId = workspaceOf(context, body);
    const userId = body.user.id;
    const values = view.state.values;
    const domain = values[CREATE_IDS.domainBlock]?.[CREATE_IDS.domainInput]?.value ?? '';
    const selected =
      values[CREATE_IDS.planBlock]?.[CREATE_IDS.planInput]?.selected_option?.value ?? 'free';
    const plan: ZonePlan = (ZONE_PLANS as readonly string[]).includes(selected)
      ? (selected as ZonePlan)
      : 'free';

    const check = checkHostname(domain);
    if (!check.ok) {
      return ack({
        response_action: 'errors',
        errors: { [CREATE_IDS.domainBlock]: `Not a domain I can onboard: ${check.reason}.` },
      });
    }
    try {
      await requireOperatorIn({ client, workspaceId, deps }, userId, 'onboard domains');
      await deps.flood.take(workspaceId, userId);
    } catch (error) {
      return ack({
        response_action: 'errors',
        errors: { [CREATE_IDS.domainBlock]: errorText(error) },
      });
    }
    await ack();

    const origin = decodeOrigin(view.private_metadata);
    let message: ReturnType<typeof zoneCreatedMessage>;
    let success = false;
    try {
      const result = await deps.zones.create(workspaceId, {
        domain: check.ascii,
        plan,
        actorId: userId,
      });
      message = zoneCreatedMessage(result, {
        plan,
        actorId: userId,
        cnameTarget: deps.edgeCnameTarget,
      });
      success = true;
    } catch (error) {
      if (!(error instanceof AppError)) deps.logger.warn({ err: error }, 'zone creation failed');
      message = errorMessage(error, 'onboarding the domain');
    }
    await originTarget(client, origin, userId, success ? 'in_channel' : 'ephemeral')
      .post(message)
      .catch((error: unknown) =>
        deps.logger.error({ err: error }, 'zone creation result not delivered'),
      );
  };
}
