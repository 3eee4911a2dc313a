import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { CdnTransport } from '../../../src/cdn/transport.js';
import { loadConfig } from '../../../src/config.js';
import { ConsoleReceiver } from '../../../src/dev/console/receiver.js';
import { startFakeSlack } from '../../../src/dev/fake-slack/server.js';
import { startSandbox } from '../../../src/dev/sandbox/server.js';
import { ManualClock } from '../../helpers/clock.js';
import { captureLogs } from '../../helpers/logs.js';
import { testStore } from '../../helpers/store.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('ConsoleReceiver', () => {
  it('runs the real listeners on a typed slash command, with no HTTP in between', async () => {
    const clock = new ManualClock();
    const slack = await startFakeSlack({ clock });
    slack.addUser({ id: 'U1', name: 'admin', isAdmin: true });
    const sandbox = await startSandbox({ clock });
    closers.push(
      () => slack.close(),
      () => sandbox.close(),
    );
    const { store } = await testStore('sqlite', { clock });
    const transport = new CdnTransport();
    closers.push(() => transport.close());
    const receiver = new ConsoleReceiver();
    const { app } = buildApp({
      // As the console does (src/dev/console/start.ts): its own token for the fake Slack, laid
      // over a console configuration (a bot token alone in the environment is refused).
      config: {
        ...loadConfig({ BOT_MODE: 'console' }),
        slack: { apiUrl: slack.apiUrl, botToken: slack.botToken },
      },
      store,
      transport,
      clock,
      logger: captureLogs().logger,
      cdnBaseUrl: sandbox.baseUrl,
      edgeCnameTarget: 'edge.console.test',
      receiver,
    });
    await app.init();
    const delivery = receiver.deliver({
      command: '/cdn',
      text: 'help',
      team_id: slack.teamId,
      user_id: 'U1',
      channel_id: 'C1',
      response_url: slack.mintResponseUrl('C1', 'U1'),
      trigger_id: slack.mintTrigger('U1'),
    });
    expect(await delivery.acked).toBeUndefined();
    await delivery.done;
    expect(slack.messages.map((m) => m.text)).toEqual(['CDN commands']);

    // A modal submission's inline errors come back as the ack.
    const login = receiver.deliver({
      command: '/cdn',
      text: 'login',
      team_id: slack.teamId,
      user_id: 'U1',
      channel_id: 'C1',
      response_url: slack.mintResponseUrl('C1', 'U1'),
      trigger_id: slack.mintTrigger('U1'),
    });
    await login.done;
    const [opened] = slack.callsTo('views.open');
    const view = {
      ...(opened?.response.view as Record<string, unknown>),
      state: {
        values: { login_key: { login_key_input: { type: 'plain_text_input', value: '' } } },
      },
    };
    const submitted = receiver.deliver({
      type: 'view_submission',
      team: { id: slack.teamId },
      user: { id: 'U1', team_id: slack.teamId },
      view,
    });
    expect(await submitted.acked).toEqual({
      response_action: 'errors',
      errors: { login_key: 'Paste the API key.' },
    });
  });
});
