// The accounts' modals: add and re-key check the key (and the base URL) before anything is saved,
// answering inline within Slack's 3 s or with a "checking" view updated when the checks end; a
// refused field is shown on that field. Rename answers a taken or invalid name on the field;
// remove is the confirmation itself.
import {
  accountAddedText,
  accountCheckingView,
  accountDoneView,
  accountRekeyedText,
  accountRemovedText,
  accountRenamedText,
} from '../../blocks/accounts.js';
import {
  inlineErrorText,
  noticeMessage,
  noticeModal,
  warningMessage,
} from '../../blocks/errors.js';
import { ACCOUNTS_IDS } from '../../blocks/ids.js';
import { keyRefusedText, keyUncheckedText } from '../../blocks/login.js';
import { type Mrkdwn, plainText } from '../../blocks/text.js';
import { within } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../../services/access/access.js';
import type { AccountCheck } from '../../services/accounts/accounts.js';
import { explain } from '../../slack/explain.js';
import { postInConversation } from '../../slack/message-target.js';
import { updateModal } from '../../slack/modal-update.js';
import { decodeAccountOrigin } from '../actions/account-buttons.js';
import { callerOf, type SubmitArgs } from '../context.js';
import { publishHome } from '../events/app-home-opened.js';

/** Slack closes a submission after 3 s: the answer leaves by this long after it arrived. */
const INLINE_ANSWER_MS = 2_500;
/** How long the checks may take in all (each has its own bound: DNS, the CDN's deadline). */
const CHECKS_TIMEOUT_MS = 60_000;

const NAME_CODES = new Set(['account_name_invalid', 'account_name_taken']);

type Field = { block: string; reason: string };
type Verdict<T> = { ok: true; value: T } | ({ ok: false } & Field);

const text = (args: SubmitArgs, block: string) =>
  args.view.state.values[block]?.[
    block === ACCOUNTS_IDS.nameBlock
      ? ACCOUNTS_IDS.nameInput
      : block === ACCOUNTS_IDS.keyBlock
        ? ACCOUNTS_IDS.keyInput
        : ACCOUNTS_IDS.baseUrlInput
  ]?.value?.trim() ?? '';

/** A check's refusal on its field, in plain text (modal errors are not mrkdwn). */
function refusalOf(check: Exclude<AccountCheck, { ok: true }>): Field {
  if (check.field === 'name')
    return { block: ACCOUNTS_IDS.nameBlock, reason: inlineErrorText(new AppError(check.problem)) };
  if (check.field === 'baseUrl')
    return { block: ACCOUNTS_IDS.baseUrlBlock, reason: `The base URL ${check.reason}.` };
  return { block: ACCOUNTS_IDS.keyBlock, reason: keyRefusedText(check.refusal) };
}

/**
 * Runs `check` (bounded), then `save` if it passed; answers inline when both end in time, else
 * with a "checking" view that is updated. Nothing is saved once the form said it gave up.
 */
async function checkThenSave<T>(
  deps: AppDeps,
  args: SubmitArgs,
  title: string,
  check: (signal: AbortSignal) => Promise<Verdict<T>>,
  save: (value: T) => Promise<Mrkdwn>,
): Promise<void> {
  const { ack, view, client } = args;
  const arrived = deps.clock.now();
  const caller = callerOf(args.context);
  const giveUp = new AbortController();
  const failed = (error: unknown, where: string): { ok: false } & Field => ({
    ok: false,
    block: ACCOUNTS_IDS.keyBlock,
    reason: giveUp.signal.aborted ? '' : plainText(explain(deps.logger, error, where)),
  });
  const checked = within(
    deps.clock,
    CHECKS_TIMEOUT_MS,
    check(giveUp.signal).catch((error: unknown) => {
      const verdict = failed(error, 'account check');
      return error instanceof AppError
        ? verdict
        : { ...verdict, reason: keyUncheckedText(verdict.reason) };
    }),
    (): Verdict<T> => {
      giveUp.abort();
      const problem = new AppError({ code: 'checks_too_slow', waitingFor: 'cdn', seconds: 60 });
      return { ok: false, block: ACCOUNTS_IDS.keyBlock, reason: inlineErrorText(problem) };
    },
  );
  const settled = checked
    .then(
      async (verdict): Promise<{ ok: true; done: Mrkdwn } | ({ ok: false } & Field)> =>
        verdict.ok ? { ok: true, done: await save(verdict.value) } : verdict,
    )
    .catch((error: unknown) => failed(error, 'account save'));
  const refresh = () => refreshHome(deps, args, caller);

  const left = INLINE_ANSWER_MS - (deps.clock.now() - arrived);
  const quick = await within(deps.clock, left, settled, () => undefined);
  if (quick) {
    if (!quick.ok)
      return ack({ response_action: 'errors', errors: { [quick.block]: quick.reason } });
    await ack({ response_action: 'update', view: accountDoneView(title, quick.done) });
    await refresh();
    return;
  }
  await ack({ response_action: 'update', view: accountCheckingView() });
  const result = await settled;
  const shown = await updateModal(client, {
    view_id: view.id,
    view: result.ok ? accountDoneView(title, result.done) : noticeModal(title, result.reason),
  });
  // Closed while the checks ran (opened from the App Home: no conversation): a DM says how it ended.
  if (shown === 'closed')
    await postInConversation(
      client,
      { userId: caller.userId },
      result.ok ? noticeMessage(result.done, ':white_check_mark:') : warningMessage(result.reason),
      'ephemeral',
      deps.logger,
    ).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'account answer not posted after the form was closed'),
    );
  if (result.ok) await refresh();
}

/** The key typed, or the inline answer it gets without calling anyone. */
function keyOf(args: SubmitArgs): string | Field {
  const apiKey = text(args, ACCOUNTS_IDS.keyBlock);
  if (apiKey === '') return { block: ACCOUNTS_IDS.keyBlock, reason: 'Paste the API key.' };
  if (/\s/.test(apiKey))
    return { block: ACCOUNTS_IDS.keyBlock, reason: 'An API key has no spaces or line breaks.' };
  return apiKey;
}

const inline = (args: SubmitArgs, field: Field) =>
  args.ack({ response_action: 'errors', errors: { [field.block]: field.reason } });

/** Add and re-key: the key typed (or its inline answer), checked for `account`, then `save`d. */
async function checkKeyThenSave(
  deps: AppDeps,
  args: SubmitArgs,
  account: { name: string; baseUrl?: string } | { accountId: string },
  save: (apiKey: string, check: Extract<AccountCheck, { ok: true }>) => Promise<Mrkdwn>,
): Promise<void> {
  const caller = callerOf(args.context);
  const apiKey = keyOf(args);
  if (typeof apiKey !== 'string') return inline(args, apiKey);
  await checkThenSave(
    deps,
    args,
    'CDN account',
    async (signal) => {
      const check = await deps.accounts.check(caller, { ...account, apiKey }, signal);
      return check.ok ? { ok: true, value: check } : { ok: false, ...refusalOf(check) };
    },
    (check) => save(apiKey, check),
  );
}

export function accountAddSubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    const caller: Caller = callerOf(args.context);
    const name = text(args, ACCOUNTS_IDS.nameBlock);
    const baseUrl = text(args, ACCOUNTS_IDS.baseUrlBlock);
    await checkKeyThenSave(
      deps,
      args,
      { name, ...(baseUrl ? { baseUrl } : {}) },
      async (apiKey, check) => {
        const account = await deps.accounts.add(caller, { name, apiKey, baseUrl: check.baseUrl });
        return accountAddedText(account, check.zoneCount);
      },
    );
  };
}

export function accountRekeySubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    const caller = callerOf(args.context);
    const accountId = decodeAccountOrigin(args.view.private_metadata).accountId ?? '';
    await checkKeyThenSave(deps, args, { accountId }, async (apiKey, check) =>
      accountRekeyedText(await deps.accounts.rekey(caller, accountId, apiKey), check.zoneCount),
    );
  };
}

/** The App Home again, when the modal was opened from it (a failure is only logged). */
async function refreshHome(deps: AppDeps, args: SubmitArgs, caller: Caller): Promise<void> {
  if (!decodeAccountOrigin(args.view.private_metadata).home) return;
  await publishHome(deps, args.client, caller).catch((error: unknown) =>
    deps.logger.warn({ err: error }, 'App Home not refreshed'),
  );
}

export function accountRenameSubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    const caller = callerOf(args.context);
    const origin = decodeAccountOrigin(args.view.private_metadata);
    let renamed: Mrkdwn;
    try {
      renamed = accountRenamedText(
        await deps.accounts.rename(
          caller,
          origin.accountId ?? '',
          text(args, ACCOUNTS_IDS.nameBlock),
        ),
      );
    } catch (error) {
      if (error instanceof AppError && NAME_CODES.has(error.code))
        return inline(args, { block: ACCOUNTS_IDS.nameBlock, reason: inlineErrorText(error) });
      throw error;
    }
    await args.ack({ response_action: 'update', view: accountDoneView('CDN account', renamed) });
    await refreshHome(deps, args, caller);
  };
}

export function accountRemoveSubmit(deps: AppDeps) {
  return async (args: SubmitArgs) => {
    const caller = callerOf(args.context);
    const origin = decodeAccountOrigin(args.view.private_metadata);
    const removed = await deps.accounts.remove(caller, origin.accountId ?? '');
    await args.ack({
      response_action: 'update',
      view: accountDoneView('Account removed', accountRemovedText(removed)),
    });
    await refreshHome(deps, args, caller);
  };
}
