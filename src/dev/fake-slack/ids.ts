// The fake Slack's clock and its one id sequence, shared so ids follow the order things happened.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';

export class SlackIds {
  #sequence = 0;

  constructor(private readonly clock: Clock) {}

  now(): number {
    return this.clock.now();
  }

  /** The next number of the sequence message timestamps and view, file and trigger ids share. */
  next(): number {
    return ++this.#sequence;
  }

  /**
   * A message timestamp, as Slack writes them: seconds, a dot, six digits ("ts": "1503435956.000247"
   * in chat.postMessage's example, slackapi/slack-api-specs web-api/slack_web_openapi_v2.json).
   */
  ts(): string {
    const seconds = Math.floor(this.clock.now() / 1000);
    return `${seconds}.${String(this.next()).padStart(6, '0')}`;
  }

  /**
   * A view's hash, new on every change ("hash": "156772938.1827394" in views.open's example,
   * slack_web_openapi_v2.json); views.update with a stale one is refused hash_conflict
   * (https://api.slack.com/methods/views.update).
   */
  hash(): string {
    return `${this.clock.now()}.${randomBytes(4).toString('hex')}`;
  }
}
