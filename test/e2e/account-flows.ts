// Helpers the e2e tests of several CDN accounts (issue 29) share: a second account `staging`
// served by its own sandbox holding the same zone names, the purges each sandbox received, and the
// account picker's buttons, a command's answer.
import { ACCOUNTS_IDS } from '../../src/blocks/ids.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import type { Account } from '../../src/store/account-model.js';
import { commandReply, modalOpenedBy, openHome } from './flows.js';
import { ADMIN, type Harness, startHarness, textOf } from './harness.js';

type Requests = Array<{ path: string; body?: unknown }>;

/** The bodies of the purges a sandbox received, in order. */
export const purges = (requests: Requests) =>
  requests.filter((r) => r.path.endsWith('/purge')).map((r) => r.body);

/** Adds the CDN account `name` at `baseUrl` with `apiKey`, its key validated (as `/cdn accounts add` would). */
export function addAccount(
  h: Harness,
  name: string,
  baseUrl: string,
  apiKey: string,
): Promise<Account> {
  return h.store.accounts.create(h.workspaceId, {
    name,
    baseUrl,
    apiKey,
    by: { userId: 'U0', validated: true },
  });
}

/**
 * Two accounts: `default` (the harness's sandbox, by `/cdn login`) and `staging` (a sandbox of its
 * own, with the same zones plus only-in-staging.example and `extra`). Close `staging` after.
 * `options` go to the harness (the allowlist for the sandboxes is always set).
 */
export async function twoAccounts(
  extra: string[] = [],
  options: Parameters<typeof startHarness>[0] = {},
): Promise<{ h: Harness; staging: Sandbox }> {
  const h = await startHarness({
    ...options,
    env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1', ...options.env },
  });
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  for (const name of ['only-in-staging.example', ...extra]) staging.state.create(name, 'free');
  // One edge serves every account's zones, as a CDN's does: staging's purges take effect there.
  h.edge.serve(staging.state);
  await h.login();
  await addAccount(h, 'staging', staging.baseUrl, 'staging-key');
  return { h, staging };
}

/** Runs `/cdn <text>` (as `user`); resolves with its answer (the next message to its response_url). */
export function ask(h: Harness, text: string, user?: string): Promise<Message> {
  return commandReply(h, text, user === undefined ? {} : { user });
}

/** The action id of the button labelled `label` in a message. */
export function buttonFor(message: Message, label: string): string {
  for (const block of message.blocks ?? []) {
    const elements = (
      block as { elements?: Array<{ action_id?: string; text?: { text?: string } }> }
    ).elements;
    const button = elements?.find((e) => e.text?.text === label);
    if (button?.action_id) return button.action_id;
  }
  throw new Error(`no button ${label}`);
}

/** The action id of the App Home's Remove button of the account `accountId`. */
export function removeButtonOf(view: { blocks?: unknown[] }, accountId: string): string {
  for (const block of (view.blocks ?? []) as Array<Record<string, unknown>>) {
    const elements = [
      ...((block.elements as Array<Record<string, unknown>> | undefined) ?? []),
      ...(block.accessory ? [block.accessory as Record<string, unknown>] : []),
    ];
    const button = elements.find(
      (e) => String(e.action_id).startsWith(`${ACCOUNTS_IDS.remove}_`) && e.value === accountId,
    );
    if (button) return String(button.action_id);
  }
  throw new Error(`no Remove button for ${accountId}`);
}

/**
 * An admin removes the account `accountId` from the App Home (Remove, then the confirmation's
 * Remove); resolves with what the modal says once it is done.
 */
export async function removeAccount(h: Harness, accountId: string): Promise<string> {
  const home = await openHome(h, ADMIN);
  const asked = await modalOpenedBy(h, () =>
    h.clickInView(home.id, removeButtonOf(home.view, accountId), { user: ADMIN }),
  );
  const done = JSON.parse((await h.submit(asked, {}, { user: ADMIN })).body);
  return textOf(done.view);
}
