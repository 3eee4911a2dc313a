// The API-key form: checked against the CDN before it is stored, refusals shown inline.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { errorText } from '../../blocks/errors.js';
import { LOGIN_IDS } from '../../blocks/ids.js';
import {
  loginCheckingView,
  loginConfirmation,
  loginDoneView,
  loginModal,
} from '../../blocks/login.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { KeyCheck } from '../../services/credentials.js';
import { postToResponseUrl } from '../../slack/respond.js';
import { accessFor, decodeOrigin, workspaceOf } from '../commands/context.js';

/** Slack closes a submission after 3 s; past this the form turns into a "checking" view. */
const INLINE_ANSWER_MS = 2_500;

type Outcome = { check: KeyCheck } | { error: unknown };

export function loginSubmit(deps: AppDeps) {
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
    const apiKey = values[LOGIN_IDS.keyBlock]?.[LOGIN_IDS.keyInput]?.value?.trim() ?? '';
    const baseUrlInput =
      values[LOGIN_IDS.baseUrlBlock]?.[LOGIN_IDS.baseUrlInput]?.value?.trim() ?? '';
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: message } });

    if (apiKey === '') return inline(LOGIN_IDS.keyBlock, 'Paste the API key.');
    if (/\s/.test(apiKey))
      return inline(LOGIN_IDS.keyBlock, 'An API key has no spaces or line breaks.');
    try {
      await accessFor({ client, workspaceId, deps }).requireAdmin(userId, 'set the CDN API key');
    } catch (error) {
      return inline(LOGIN_IDS.keyBlock, errorText(error));
    }
    // Checked only for an admin: resolving names on behalf of anyone would be a probe of its own.
    const base = baseUrlInput === '' ? undefined : await deps.egress.checkOverride(baseUrlInput);
    if (base && !base.ok) return inline(LOGIN_IDS.baseUrlBlock, `The base URL ${base.reason}.`);
    const baseUrl = base?.ok ? base.url : null;

    const checking: Promise<Outcome> = deps.credentials.check(apiKey, baseUrl).then(
      (check) => ({ check }),
      (error: unknown) => ({ error }),
    );
    const quick = await Promise.race([
      checking,
      deps.clock.sleep(INLINE_ANSWER_MS).then(() => undefined),
    ]);

    const finish = async (
      outcome: Outcome,
    ): Promise<{ ok: true; zoneCount: number } | { ok: false; reason: string }> => {
      if ('error' in outcome) {
        if (!(outcome.error instanceof AppError))
          deps.logger.warn({ err: outcome.error }, 'key check failed');
        return { ok: false, reason: `Couldn't check the key: ${errorText(outcome.error)}` };
      }
      if (!outcome.check.ok) return outcome.check;
      await deps.credentials.save(workspaceId, { apiKey, baseUrl, actorId: userId });
      deps.zones.forget(workspaceId);
      const origin = decodeOrigin(view.private_metadata);
      if (origin.responseUrl) {
        await postToResponseUrl(
          origin.responseUrl,
          loginConfirmation(outcome.check.zoneCount),
        ).catch((error: unknown) =>
          deps.logger.warn({ err: error }, 'login confirmation not posted'),
        );
      }
      return outcome.check;
    };
    const doneView = (zoneCount: number) =>
      loginDoneView({ zoneCount, baseUrl: baseUrl ?? deps.defaultBaseUrl });

    if (quick) {
      const result = await finish(quick);
      if (!result.ok) return inline(LOGIN_IDS.keyBlock, result.reason);
      return ack({ response_action: 'update', view: doneView(result.zoneCount) });
    }

    // The CDN is slow: answer Slack now, and update the view when it answers.
    await ack({ response_action: 'update', view: loginCheckingView() });
    const result = await finish(await checking);
    const workspace = await deps.store.workspaces.ensure(workspaceId);
    await client.views.update({
      view_id: view.id,
      view: result.ok
        ? doneView(result.zoneCount)
        : loginModal({
            defaultBaseUrl: deps.defaultBaseUrl,
            currentBaseUrl: baseUrl ?? workspace.cdnBaseUrl,
            hasKey: (await deps.store.credentials.status(workspaceId)) !== undefined,
            metadata: view.private_metadata,
            problem: result.reason,
          }),
    });
  };
}
