// A child process for the ack benchmark: the fake Slack (which receives the app's response_url
// posts) and the CDN sandbox, so that the process measuring latency does nothing else.
// Talks over IPC: sends { ready } once, and answers { mint: n } with n fresh response_urls.
import { startFakeSlack } from '../src/dev/fake-slack/server.js';
import { startSandbox } from '../src/dev/sandbox/server.js';

const slack = await startFakeSlack();
slack.addUser({ id: 'U1', name: 'bench' });
const sandbox = await startSandbox({ apiKeys: [process.env.BENCH_CDN_KEY ?? ''] });

process.on('message', (message: { mint?: number }) => {
  if (typeof message.mint !== 'number') return;
  const urls = Array.from({ length: message.mint }, () => slack.mintResponseUrl('C1', 'U1'));
  process.send?.({ urls });
});
process.on('disconnect', () => {
  void Promise.all([slack.close(), sandbox.close()]).then(() => process.exit(0));
});
process.send?.({
  ready: {
    apiUrl: slack.apiUrl,
    teamId: slack.teamId,
    botToken: slack.botToken,
    baseUrl: sandbox.baseUrl,
  },
});
