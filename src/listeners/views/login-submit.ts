// The API-key form: checked against the CDN before it is stored, refusals shown inline.
import { errorText } from '../../blocks/errors.js';
import { LOGIN_IDS } from '../../blocks/ids.js';
import {
  keyRefusedText,
  keyUncheckedText,
  loginCheckingView,
  loginConfirmation,
  loginDoneView,
  loginModal,
} from '../../blocks/login.js';
import type { AppDeps } from '../../deps.js';
import type { KeyCheck } from '../../services/credentials.js';
import { explain } from '../../slack/explain.js';
import { postToResponseUrl } from '../../slack/respond.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

/** Slack closes a submission after 3 s; past this the form turns into a "checking" view. */
const INLINE_ANSWER_MS = 2_500;

type Outcome = { check: KeyCheck } | { error: unknown };
type Result = { ok: true; zoneCount: number; apiUrl: string } | { ok: false; reason: string };

export function loginSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const caller = callerOf(context);
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
      await deps.credentials.requireAdmin(caller);
    } catch (error) {
      return inline(LOGIN_IDS.keyBlock, errorText(error));
    }
    // Checked only for an admin: resolving names on behalf of anyone would be a probe of its own.
    const base =
      baseUrlInput === '' ? undefined : await deps.credentials.checkBaseUrl(baseUrlInput);
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

    const finish = async (outcome: Outcome): Promise<Result> => {
      if ('error' in outcome)
        return {
          ok: false,
          reason: keyUncheckedText(explain(deps.logger, outcome.error, 'key check')),
        };
      if (!outcome.check.ok) return { ok: false, reason: keyRefusedText(outcome.check.refusal) };
      await deps.credentials.save(caller, { apiKey, baseUrl });
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
    const doneView = (result: { zoneCount: number; apiUrl: string }) =>
      loginDoneView({ zoneCount: result.zoneCount, baseUrl: result.apiUrl });

    if (quick) {
      const result = await finish(quick);
      if (!result.ok) return inline(LOGIN_IDS.keyBlock, result.reason);
      return ack({ response_action: 'update', view: doneView(result) });
    }

    // The CDN is slow: answer Slack now, and update the view when it answers.
    await ack({ response_action: 'update', view: loginCheckingView() });
    const result = await finish(await checking);
    await client.views.update({
      view_id: view.id,
      view: result.ok
        ? doneView(result)
        : loginModal({
            ...(await deps.config.keyForm(caller)),
            ...(baseUrl ? { currentBaseUrl: baseUrl } : {}),
            metadata: view.private_metadata,
            problem: result.reason,
          }),
    });
  };
}
