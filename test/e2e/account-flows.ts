// Helpers the e2e tests of several CDN accounts (issue 29) share: a second account `staging`
// served by its own sandbox holding the same zone names, the purges each sandbox received, and the
// account picker's buttons, a command's answer.
import type { Message } from '../../src/dev/fake-slack/server.js';
import { type Sandbox, startSandbox } from '../../src/dev/sandbox/server.js';
import { type Harness, startHarness } from './harness.js';

type Requests = Array<{ path: string; body?: unknown }>;

/** The bodies of the purges a sandbox received, in order. */
export const purges = (requests: Requests) =>
  requests.filter((r) => r.path.endsWith('/purge')).map((r) => r.body);

/**
 * Two accounts: `default` (the harness's sandbox, by `/cdn login`) and `staging` (a sandbox of its
 * own, with the same zones plus only-in-staging.example and `extra`). Close `staging` after.
 */
export async function twoAccounts(extra: string[] = []): Promise<{ h: Harness; staging: Sandbox }> {
  const h = await startHarness({ env: { CDN_BASE_URL_ALLOWLIST: '127.0.0.1' } });
  const staging = await startSandbox({ apiKeys: ['staging-key'], clock: h.clock });
  for (const name of ['only-in-staging.example', ...extra]) staging.state.create(name, 'free');
  // One edge serves every account's zones, as a CDN's does: staging's purges take effect there.
  h.edge.serve(staging.state);
  await h.login();
  await h.store.accounts.create(h.workspaceId, {
    name: 'staging',
    baseUrl: staging.baseUrl,
    apiKey: 'staging-key',
    by: { userId: 'U0', validated: true },
  });
  return { h, staging };
}

/** Runs `/cdn <text>` (as `user`); resolves with its answer (the next message to its response_url). */
export async function ask(h: Harness, text: string, user?: string): Promise<Message> {
  const before = h.slack.messages.filter((m) => m.via === 'response_url').length;
  await h.command(text, user === undefined ? {} : { user });
  const replies = await h.slack.waitForMessages((m) => m.via === 'response_url', before + 1);
  const reply = replies[before];
  if (!reply) throw new Error(`no answer to /cdn ${text}`);
  return reply;
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
