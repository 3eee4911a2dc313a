// Every delivery Slack sends is answered 200 at once, even one no listener takes. Bolt leaves
// unacknowledged what it cannot route (an Events API envelope with no inner event, such as
// `app_rate_limited`), and its HTTP receiver then answers 404 after 3 s; Slack counts deliveries
// not answered 200 toward turning the app's event subscriptions off ("Event subscriptions may be
// limited and disabled when your app does not respond with a HTTP 200 OK to at 5% of event
// deliveries in the past 60 minutes": https://docs.slack.dev/reference/events/app_rate_limited/).
// What was answered here, or reached no listener, is logged (its type only) and counted.
import { App, type AppOptions, type ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../logger.js';

/** Where a delivery nobody answered is counted (BotMetrics), by a low-cardinality type. */
export interface UnansweredCount {
  unanswered(type: string): void;
}

/** At most this many distinct type labels are counted; later ones are counted as `other`. */
const MAX_TYPES = 50;

/** A type as Slack spells one (`app_rate_limited`, `event:message`); anything else is `other`. */
const SLACK_TYPE = /^(event:)?[a-z][a-z0-9_.]{0,59}$/;

/** Types to log and count: Slack's words, a bounded set of them. */
export class DeliveryTypes {
  readonly #seen = new Set<string>();

  label(type: unknown): string {
    if (typeof type !== 'string' || !SLACK_TYPE.test(type)) return 'other';
    if (this.#seen.has(type)) return type;
    if (this.#seen.size >= MAX_TYPES) return 'other';
    this.#seen.add(type);
    return type;
  }
}

export interface AnsweringAppOptions {
  logger: Logger;
  metrics?: UnansweredCount | undefined;
  types?: DeliveryTypes;
}

/** Bolt's App, which acknowledges a delivery its listeners left unanswered once they are done. */
export class AnsweringApp extends App {
  readonly #logger: Logger;
  readonly #metrics: UnansweredCount | undefined;
  readonly #types: DeliveryTypes;

  constructor(options: AppOptions, answering: AnsweringAppOptions) {
    super(options);
    this.#logger = answering.logger;
    this.#metrics = answering.metrics;
    this.#types = answering.types ?? new DeliveryTypes();
  }

  override async processEvent(event: ReceiverEvent): Promise<void> {
    let acked = false;
    const ack: ReceiverEvent['ack'] = async (response) => {
      acked = true;
      return event.ack(response);
    };
    await super.processEvent({ ...event, ack });
    if (acked) return;
    // Only what has the shape of a Slack delivery (a `type` as Slack spells one) is answered 200:
    // a body that is no payload at all is left to Bolt's refusal.
    const raw = (event.body as { type?: unknown } | undefined)?.type;
    if (typeof raw !== 'string' || !SLACK_TYPE.test(raw)) return;
    const type = this.#types.label(raw);
    this.#logger.warn({ type }, 'a delivery no listener answered; acknowledged');
    this.#metrics?.unanswered(type);
    await event.ack();
  }

  /** An event of a type no listener of the app handles (Bolt has acknowledged it already). */
  unhandledEvent(eventType: unknown): void {
    const type = this.#types.label(`event:${String(eventType)}`);
    this.#logger.warn({ type }, 'an event no listener handles');
    this.#metrics?.unanswered(type);
  }
}
