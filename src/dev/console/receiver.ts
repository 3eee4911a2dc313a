// A Bolt receiver for the local console: payloads typed at the prompt go straight to
// app.processEvent, so the very same listeners run as in Slack; nothing is reimplemented.
import type { App, Receiver } from '@slack/bolt';

export interface Delivery {
  /** What the app acknowledged with (a modal's errors, an options list, or nothing). */
  acked: Promise<unknown>;
  /** When the listener has finished, including its work after the ack. */
  done: Promise<void>;
}

export class ConsoleReceiver implements Receiver {
  #app: App | undefined;

  init(app: App): void {
    this.#app = app;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  /** Delivers a payload as Slack would (a slash command, an interaction or an event). */
  deliver(body: Record<string, unknown>): Delivery {
    const app = this.#app;
    if (!app) throw new Error('ConsoleReceiver: the app is not initialized');
    let acknowledge: (response: unknown) => void = () => undefined;
    const acked = new Promise<unknown>((resolve) => {
      acknowledge = resolve;
    });
    const done = app
      .processEvent({
        body,
        ack: async (response?: unknown) => {
          acknowledge(response);
        },
      })
      // A listener that never acked (an unknown payload) still settles the delivery.
      .finally(() => acknowledge(undefined));
    return { acked, done };
  }
}
