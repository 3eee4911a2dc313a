import { describe, expect, it } from 'vitest';
import { captureLogs } from './helpers/logs.js';

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
