// The accounts' buttons (in `/cdn accounts` and on the App Home): each opens its modal for an
// admin. Removing opens a confirmation that says what stops.
import type { ModalView } from '@slack/types';
import {
  accountAddModal,
  accountRekeyModal,
  accountRemoveModal,
  accountRenameModal,
} from '../../blocks/accounts.js';
import type { AppDeps } from '../../deps.js';
import type { Caller } from '../../services/access/access.js';
import { type ButtonArgs, callerOf } from '../context.js';

/** What an account modal carries: the account, and whether it was opened from the App Home. */
export interface AccountModalOrigin {
  accountId?: string;
  home: boolean;
}

export function encodeAccountOrigin(origin: AccountModalOrigin): string {
  return JSON.stringify(origin);
}

export function decodeAccountOrigin(metadata: string): AccountModalOrigin {
  try {
    const parsed = JSON.parse(metadata) as { accountId?: unknown; home?: unknown };
    return {
      home: parsed.home === true,
      ...(typeof parsed.accountId === 'string' ? { accountId: parsed.accountId } : {}),
    };
  } catch {
    return { home: false };
  }
}

type Open = (caller: Caller, accountId: string, metadata: string) => Promise<ModalView>;

function opens(open: Open) {
  return async ({ ack, action, body, client, context }: ButtonArgs) => {
    await ack();
    const accountId = action.value ?? '';
    const home = (body.view as { type?: string } | undefined)?.type === 'home';
    const metadata = encodeAccountOrigin({ home, ...(accountId ? { accountId } : {}) });
    const view = await open(callerOf(context), accountId, metadata);
    await client.views.open({ trigger_id: body.trigger_id, view });
  };
}

export const accountAdd = (deps: AppDeps) =>
  opens(async (caller, _id, metadata) => {
    await deps.accounts.requireAdmin(caller);
    return accountAddModal({ defaultBaseUrl: deps.accounts.defaultBaseUrl, metadata });
  });

export const accountRename = (deps: AppDeps) =>
  opens(async (caller, id, metadata) =>
    accountRenameModal(await deps.accounts.get(caller, id), metadata),
  );

export const accountRekey = (deps: AppDeps) =>
  opens(async (caller, id, metadata) =>
    accountRekeyModal(await deps.accounts.get(caller, id), metadata),
  );

export const accountRemove = (deps: AppDeps) =>
  opens(async (caller, id, metadata) =>
    accountRemoveModal(await deps.accounts.removalPreview(caller, id), metadata),
  );
