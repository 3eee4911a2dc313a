// What the console's parts share: the fake Slack, output, who is typing, a way to reach the app.
import type { SlackPayloads } from '../fake-slack/payloads.js';
import type { FakeSlack } from '../fake-slack/server.js';
import type { ConsoleUser } from './world.js';

export type Json = Record<string, unknown>;

export interface ConsoleContext {
  readonly slack: FakeSlack;
  /** Builds the payloads Slack would send the app. */
  readonly payloads: SlackPayloads;
  /** Columns of output. */
  readonly width: number;
  /** Writes a block of output text. */
  print(text: string): void;
  /** The person typing now (/as changes who). */
  user(): ConsoleUser;
  /**
   * Hands a payload to the app and waits for all of its work; a crash is shown, not thrown.
   * `onAck` sees the acknowledgement as Slack would: before the listener's later API calls.
   */
  deliver(body: Json, onAck?: (response: unknown) => void): Promise<unknown>;
}
