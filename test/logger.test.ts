import { describe, expect, it } from 'vitest';
import { captureLogs, expectNoSecrets } from './helpers/logs.js';

describe('createLogger', () => {
  it('redacts credentials in objects that are logged whole', () => {
    const logs = captureLogs('info');
    logs.logger.info(
      {
        request: { headers: { authorization: 'Bearer sk_live_1' } },
        options: { apiKey: 'sk_live_2', botToken: 'xoxb-3', signingSecret: 's4' },
        token: 'xoxp-5',
      },
      'hello',
    );
    const line = logs.text();
    for (const secret of ['sk_live_1', 'sk_live_2', 'xoxb-3', 's4', 'xoxp-5']) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({
      options: { apiKey: '[redacted]' },
      token: '[redacted]',
      msg: 'hello',
    });
  });
});

describe('secrets inside message strings', () => {
  it.each([
    [
      'http request body: {"code":"c1","client_id":"1.2","client_secret":"oauth-secret-9"}',
      'oauth-secret-9',
    ],
    ['http request body: client_secret=oauth-secret-9&code=c1', 'oauth-secret-9'],
    ['posting with xoxb-1234-5678-abcdEFGH', 'xoxb-1234-5678-abcdEFGH'],
    ['connecting with xapp-1-A0-123-abc', 'xapp-1-A0-123-abc'],
    ['headers: Authorization: Bearer sk_live_77', 'sk_live_77'],
    ['{"access_token":"xoxe-1-abc","refresh_token":"xoxe-2-def"}', 'xoxe-2-def'],
    ['{\\"token\\":\\"secret-in-escaped-json\\"}', 'secret-in-escaped-json'],
  ])('are scrubbed: %s', (message, secret) => {
    const logs = captureLogs('debug');
    logs.logger.debug(message);
    logs.logger.info({ detail: 1 }, message);
    expect(logs.text()).not.toContain(secret);
    expect(logs.text()).toContain('redacted');
  });

  it('leaves ordinary messages alone', () => {
    const logs = captureLogs('info');
    logs.logger.info('token_type bot, tokens revoked: 2, purge ids: purge_1');
    expect(JSON.parse(logs.text()).msg).toBe(
      'token_type bot, tokens revoked: 2, purge ids: purge_1',
    );
  });
});

describe('expectNoSecrets (the e2e suite runs it on every harness after each test)', () => {
  it('finds a secret as is, JSON-escaped, base64 or hex, and names it without printing it', () => {
    const key = Buffer.alloc(32, 7);
    for (const line of [
      'key sk_e2e_right_key',
      `k=${key.toString('base64')}`,
      `h=${key.toString('hex')}`,
    ]) {
      expect(() =>
        expectNoSecrets(
          { text: () => line },
          { 'the CDN key': 'sk_e2e_right_key', 'the encryption key': key },
        ),
      ).toThrow(/^secrets in the logs: the (CDN|encryption) key$/);
    }
    expect(() =>
      expectNoSecrets({ text: () => 'all clear' }, { 'the CDN key': 'sk_e2e_right_key' }),
    ).not.toThrow();
  });
});
