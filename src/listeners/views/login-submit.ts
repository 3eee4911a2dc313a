// The API-key form: the admin check, the base URL's DNS and the key itself are checked before it is
// stored. Slack waits 3 s for the answer, counted from the submission's arrival: whatever is not
// known by then is answered with a "checking" view that is updated when the checks end.
import { inlineErrorText, noticeModal, warningMessage } from '../../blocks/errors.js';
import { LOGIN_IDS } from '../../blocks/ids.js';
import {
  keyRefusedText,
  keyUncheckedText,
  loginCheckingView,
  loginConfirmation,
  loginDoneView,
  loginModal,
} from '../../blocks/login.js';
import type { Message } from '../../blocks/message.js';
import { md, plainText } from '../../blocks/text.js';
import { within } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { explain } from '../../slack/explain.js';
import { originTarget } from '../../slack/message-target.js';
import { updateModal } from '../../slack/modal-update.js';
import { postToResponseUrl } from '../../slack/respond.js';
import { decodeOrigin } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

/** Slack closes a submission after 3 s: the answer leaves by this long after it arrived. */
const INLINE_ANSWER_MS = 2_500;
/**
 * How long all the checks may take in all, answered inline or not. Each has a bound of its own
 * (DNS 5 s, the CDN's operation deadline); this one also covers users.info, which has none.
 */
const CHECKS_TIMEOUT_MS = 60_000;

/** The check under way: what the form waits for, if it runs out of time. */
type Step = 'slack' | 'dns' | 'cdn';

type Verdict =
  | { ok: true; zoneCount: number; apiUrl: string; baseUrl: string | null }
  /** `block`: the input the reason belongs to; `step`: the check that failed. */
  | { ok: false; block: string; reason: string; step: Step };

export function loginSubmit(deps: AppDeps) {
  return async ({ ack, view, client, context }: SubmitArgs) => {
    const arrived = deps.clock.now();
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

    const giveUp = new AbortController();
    let step: Step = 'slack';
    const checks = async (): Promise<Verdict> => {
      const refused = (block: string, reason: string): Verdict => ({
        ok: false,
        block,
        reason,
        step,
      });
      try {
        await deps.credentials.requireAdmin(caller);
      } catch (error) {
        return refused(LOGIN_IDS.keyBlock, plainText(explain(deps.logger, error, 'admin check')));
      }
      // Checked only for an admin: resolving names on behalf of anyone would be a probe of its own.
      step = 'dns';
      const base =
        baseUrlInput === '' ? undefined : await deps.credentials.checkBaseUrl(baseUrlInput);
      if (base && !base.ok) return refused(LOGIN_IDS.baseUrlBlock, `The base URL ${base.reason}.`);
      const baseUrl = base?.ok ? base.url : null;
      step = 'cdn';
      try {
        const check = await deps.credentials.check(apiKey, baseUrl, giveUp.signal);
        if (!check.ok) return refused(LOGIN_IDS.keyBlock, keyRefusedText(check.refusal));
        return { ok: true, zoneCount: check.zoneCount, apiUrl: check.apiUrl, baseUrl };
      } catch (error) {
        // Abandoned (the form already said it ran out of time): nothing to explain or log.
        if (giveUp.signal.aborted) return refused(LOGIN_IDS.keyBlock, '');
        return refused(
          LOGIN_IDS.keyBlock,
          keyUncheckedText(plainText(explain(deps.logger, error, 'key check'))),
        );
      }
    };
    const tooSlow = (): Verdict => {
      giveUp.abort();
      const problem = new AppError({
        code: 'checks_too_slow',
        waitingFor: step,
        seconds: CHECKS_TIMEOUT_MS / 1000,
      });
      return { ok: false, block: LOGIN_IDS.keyBlock, reason: inlineErrorText(problem), step };
    };
    const checked = within(deps.clock, CHECKS_TIMEOUT_MS, checks(), tooSlow);
    // Saved only once every check passed, and never after the form said it gave up.
    const settled: Promise<Verdict> = checked.then(
      async (verdict) => {
        if (verdict.ok) await deps.credentials.save(caller, { apiKey, baseUrl: verdict.baseUrl });
        return verdict;
      },
      (error: unknown): Verdict => ({
        ok: false,
        block: LOGIN_IDS.keyBlock,
        reason: plainText(explain(deps.logger, error, 'key save')),
        step,
      }),
    );
    const confirm = async (zoneCount: number) => {
      const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
      if (!origin.responseUrl) return;
      await postToResponseUrl(origin.responseUrl, loginConfirmation(zoneCount)).catch(
        (error: unknown) => deps.logger.warn({ err: error }, 'login confirmation not posted'),
      );
    };
    const doneView = (result: { zoneCount: number; apiUrl: string }) =>
      loginDoneView({ zoneCount: result.zoneCount, baseUrl: result.apiUrl });

    const left = INLINE_ANSWER_MS - (deps.clock.now() - arrived);
    const quick = await within(deps.clock, left, settled, () => undefined);
    if (quick) {
      if (!quick.ok) return inline(quick.block, quick.reason);
      await ack({ response_action: 'update', view: doneView(quick) });
      return confirm(quick.zoneCount);
    }

    // Slack, DNS or the CDN is slow: answer Slack now, and update the view when the checks end.
    await ack({ response_action: 'update', view: loginCheckingView() });
    const result = await settled;
    // Closed while the checks ran: the key is saved (or not) all the same, and the person is told
    // where the form came from (its response_url, the channel, else a DM).
    const toldElsewhere = (message: Message) =>
      originTarget(
        client,
        decodeOrigin(view.private_metadata, deps.isSlackResponseUrl),
        caller.userId,
        deps.logger,
        'ephemeral',
      )
        .post(message)
        .catch((error: unknown) =>
          deps.logger.warn({ err: error }, 'login answer not posted after the form was closed'),
        );
    if (result.ok) {
      if ((await updateModal(client, { view_id: view.id, view: doneView(result) })) === 'closed')
        return toldElsewhere(loginConfirmation(result.zoneCount));
      return confirm(result.zoneCount);
    }
    // Refused: the form again, with why; for someone not known to be an admin, only why.
    const shown = await updateModal(client, {
      view_id: view.id,
      view:
        result.step === 'slack'
          ? noticeModal('CDN API key', result.reason)
          : loginModal({
              ...(await deps.config.keyForm(caller)),
              ...(baseUrlInput ? { currentBaseUrl: baseUrlInput } : {}),
              metadata: view.private_metadata,
              problem: result.reason,
            }),
    });
    if (shown === 'closed')
      await toldElsewhere(warningMessage(md`The CDN API key was not saved. ${result.reason}`));
  };
}
