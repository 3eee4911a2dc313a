// Where a modal's answer lands: its response_url while Slack takes it, then the channel it was
// opened from (as a message, or ephemeral to the user), then the user's DM.
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/dev/fake-slack/server.js';
import { originTarget } from '../../src/slack/message-target.js';
import { InstantClock } from '../helpers/clock.js';
import { captureLogs } from '../helpers/logs.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

const message = (text: string) => ({ text, blocks: [] });

async function world() {
  const fake = await startFakeSlack({ clock: new InstantClock() });
  slack = fake;
  fake.addUser({ id: 'U1', name: 'alice' });
  fake.addChannel({ id: 'COPS', name: 'ops', botMember: true });
  fake.addChannel({ id: 'CGONE', name: 'gone', botMember: true, archived: true });
  const client = new WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
  });
  const seen = () => fake.messages.map((m) => [m.channel, m.via, m.ephemeralTo, m.text]);
  return { fake, client, seen, logs: captureLogs('debug') };
}

describe('originTarget', () => {
  it('answers through the response_url while Slack takes it', async () => {
    const { fake, client, seen, logs } = await world();
    const target = originTarget(
      client,
      { channelId: 'COPS', responseUrl: fake.mintResponseUrl('COPS', 'U1') },
      'U1',
      logs.logger,
    );
    await target.post(message('Created'));
    expect(seen()).toEqual([['COPS', 'response_url', undefined, 'Created']]);
  });

  it('posts in the channel once the response_url is dead', async () => {
    const { fake, client, seen, logs } = await world();
    const url = fake.mintResponseUrl('COPS', 'U1');
    fake.killResponseUrl(url);
    await originTarget(client, { channelId: 'COPS', responseUrl: url }, 'U1', logs.logger).post(
      message('Created'),
    );
    expect(seen()).toEqual([['COPS', 'api', undefined, 'Created']]);
  });

  it('says an ephemeral answer ephemerally in the channel once the response_url is dead', async () => {
    const { fake, client, seen, logs } = await world();
    const url = fake.mintResponseUrl('COPS', 'U1');
    fake.killResponseUrl(url, 'used_url');
    await originTarget(
      client,
      { channelId: 'COPS', responseUrl: url },
      'U1',
      logs.logger,
      'ephemeral',
    ).post(message('Refused'));
    expect(seen()).toEqual([['COPS', 'api', 'U1', 'Refused']]);
  });

  it('goes to the DM when the channel refuses too, logging why each way refused', async () => {
    const { fake, client, seen, logs } = await world();
    const url = fake.mintResponseUrl('CGONE', 'U1');
    fake.killResponseUrl(url);
    await originTarget(
      client,
      { channelId: 'CGONE', responseUrl: url },
      'U1',
      logs.logger,
      'ephemeral',
    ).post(message('Refused'));
    expect(seen()).toEqual([['U1', 'api', undefined, 'Refused']]);
    expect(logs.text()).toContain('expired_url');
    expect(logs.text()).toContain('is_archived');
  });

  it('goes to the DM when there is no conversation (the App Home)', async () => {
    const { client, seen, logs } = await world();
    await originTarget(client, {}, 'U1', logs.logger).post(message('Created'));
    expect(seen()).toEqual([['U1', 'api', undefined, 'Created']]);
  });
});
