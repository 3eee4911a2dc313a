// Mention and link injection, end to end: hostile text typed into every command, form and reason,
// or returned by the CDN, must reach Slack escaped wherever Slack would parse it as mrkdwn.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS, PURGE_IDS } from '../../src/blocks/ids.js';
import type { FakeSlack } from '../../src/dev/fake-slack/server.js';
import { INJECTED, mrkdwnOf } from '../helpers/mrkdwn.js';
import { ADMIN, CHANNEL, type Harness, MEMBER, OTHER, startHarness, viewIdOf } from './harness.js';

function everythingShown(slack: FakeSlack): string[] {
  const texts: string[] = [];
  for (const message of slack.messages) {
    for (const version of [...message.history, message]) {
      mrkdwnOf({ text: version.text, blocks: version.blocks }, texts);
    }
  }
  for (const view of slack.views.values()) mrkdwnOf(view.view, texts);
  for (const home of slack.homes.values()) mrkdwnOf(home.view, texts);
  for (const file of slack.files.values()) if (file.initialComment) texts.push(file.initialComment);
  return texts;
}

function expectNothingInjected(slack: FakeSlack): void {
  const injected = everythingShown(slack).filter((text) => INJECTED.test(text));
  expect(injected).toEqual([]);
}

/** Runs a command and waits for the one answer it gets. */
async function answered(h: Harness, text: string, user = ADMIN): Promise<void> {
  const before = h.slack.messages.length;
  const { status } = await h.command(text, { user });
  expect(status).toBe(200);
  await h.slack.waitForMessages(() => true, before + 1);
}

// As Slack sends them with should_escape: "@channel" typed becomes <!channel>, a typed "<" becomes
// &lt;, and a link typed with a label arrives as its escape.
const RAW = ['<!channel>', '<!here>', '<@UEVIL>', '<!subteam^SEVIL|@evil>'];
const ENTITIES = ['&lt;!channel&gt;', '&lt;@UEVIL&gt;', '&lt;http://evil.example|innocent&gt;'];
const LINK = '<http://evil.example/x|https://example.com/x>';

describe('hostile text never becomes a mention or a disguised link', () => {
  it('in the answers to every command', async () => {
    const h = await startHarness({ login: true });
    for (const hostile of [...RAW, ...ENTITIES, LINK]) {
      for (const command of [
        hostile,
        `zones ${hostile}`,
        `zones active page ${hostile}`,
        `create ${hostile}`,
        `create example.dev ${hostile}`,
        `ratelimit ${hostile} on`,
        `ratelimit example.com ${hostile}`,
        `purge ${hostile} everything`,
        `purge example.com ${hostile}`,
        `purge example.com tag:${hostile}`,
        `purge ${hostile}`,
        `analytics ${hostile}`,
        `analytics example.com ${hostile}`,
        `report ${hostile} daily`,
        `report example.com daily ${hostile}`,
        `report stop ${hostile}`,
        `audit ${hostile}`,
        `config operators ${hostile}`,
        `config ${hostile}`,
      ]) {
        await answered(h, command);
      }
    }
    expect(h.slack.messages.length).toBeGreaterThan(100);
    expectNothingInjected(h.slack);
  });

  it('in a purge-everything reason, through the approval, denial note and audit log', async () => {
    const h = await startHarness({ login: true });
    const reason = 'Urgent <!channel> <@UEVIL> see <http://evil.example|the runbook>';
    for (const [decision, note] of [
      ['approve', undefined],
      ['deny', '<!here> nope, see <http://evil.example|policy>'],
    ] as const) {
      const opens = h.slack.callsTo('views.open').length;
      const posted = h.slack.messages.length;
      await h.command('purge example.com everything', { user: MEMBER });
      const calls = await h.slack.waitForCalls((c) => c.method === 'views.open', opens + 1);
      const viewId = viewIdOf(calls[opens]);
      await h.submit(
        viewId,
        {
          [PURGE_IDS.confirmBlock]: {
            [PURGE_IDS.confirmInput]: { type: 'plain_text_input', value: 'example.com' },
          },
          [PURGE_IDS.reasonBlock]: {
            [PURGE_IDS.reasonInput]: { type: 'plain_text_input', value: reason },
          },
        },
        { user: MEMBER },
      );
      const [request] = await h.slack.waitForMessages(
        (m) => m.channel === CHANNEL && m.via === 'api' && h.slack.messages.indexOf(m) >= posted,
      );
      if (!request) throw new Error('no approval request');
      // The reason is shown, escaped: Slack renders it as the text typed, pinging no one.
      expect(JSON.stringify(request.blocks)).toContain(
        'Urgent &lt;!channel&gt; &lt;@UEVIL&gt; see &lt;http://evil.example|the runbook&gt;',
      );
      const opened = h.slack.callsTo('views.open').length;
      await h.click(request, decision === 'approve' ? APPROVAL_IDS.approve : APPROVAL_IDS.deny, {
        user: OTHER,
      });
      const modal = viewIdOf(
        (await h.slack.waitForCalls((c) => c.method === 'views.open', opened + 1))[opened],
      );
      await h.submit(
        modal,
        note
          ? {
              [APPROVAL_IDS.denyReasonBlock]: {
                [APPROVAL_IDS.denyReasonInput]: { type: 'plain_text_input', value: note },
              },
            }
          : {},
        { user: OTHER },
      );
      await h.slack.waitForMessages(
        (m) => m === request && m.history.length >= (decision === 'approve' ? 2 : 1),
      );
    }
    await answered(h, 'audit example.com');
    const home = h.slack.callsTo('views.publish').length;
    await h.event({ type: 'app_home_opened', user: ADMIN, tab: 'home', channel: 'DHOME' });
    await h.slack.waitForCalls((c) => c.method === 'views.publish', home + 1);
    expectNothingInjected(h.slack);
  });

  it('in what the CDN says back', async () => {
    const h = await startHarness({ login: true });
    for (const body of [
      { error: { message: '<!channel> zone locked, see <http://evil.example|docs>' } },
      { message: '<@UEVIL> says no' },
      '<!here> plain text error',
    ]) {
      h.sandbox.inject({ kind: 'status', status: 409, method: 'POST', body });
      await answered(h, 'ratelimit example.com on');
      h.sandbox.inject({ kind: 'status', status: 400, method: 'GET', body });
      await answered(h, 'analytics example.com 1h');
    }
    expectNothingInjected(h.slack);
    // The messages were shown, not swallowed.
    expect(everythingShown(h.slack).join('\n')).toContain('&lt;!channel&gt; zone locked');
  });
});
