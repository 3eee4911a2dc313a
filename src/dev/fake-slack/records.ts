// What the fake Slack holds and has seen: the workspace, what the app made there, every API call.
// Bookkeeping for tests, not a behaviour of Slack: nothing here answers the app.
import { EventEmitter } from 'node:events';
import type { FaultHit } from './faults.js';
import type {
  ApiCall,
  FakeChannel,
  FakeUser,
  FakeView,
  Message,
  RefusedCall,
  ResponseUrlPost,
  SlackEvents,
  UploadedFile,
} from './types.js';

/** The recorded state tests read and wait on; the fake Slack's method modules write to it. */
export class SlackRecords extends EventEmitter<SlackEvents> {
  readonly calls: ApiCall[] = [];
  readonly messages: Message[] = [];
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly usergroups = new Map<string, { handle: string; members: string[] }>();
  readonly views = new Map<string, FakeView>();
  readonly homes = new Map<string, FakeView>();
  readonly files = new Map<string, UploadedFile>();
  /** How many calls were answered 429. */
  rateLimited = 0;
  /** The calls answered 429, by method. */
  readonly rateLimitedBy: Record<string, number> = {};
  /** Every call answered 429 (a limit's or an injected fault's), oldest first. */
  readonly refusedCalls: RefusedCall[] = [];
  #seq = 0;
  /** Bot tokens handed out by oauth.v2.access (tests search logs for them). */
  readonly issuedTokens: string[] = [];
  /** Every response_url minted, oldest first. */
  readonly responseUrls: string[] = [];
  /** Every POST to a response_url and how Slack answered it, oldest first. */
  readonly responseUrlPosts: ResponseUrlPost[] = [];
  /** Every call a fault was injected on, oldest first. */
  readonly faultHits: FaultHit[] = [];

  addUser(user: FakeUser): FakeUser {
    this.users.set(user.id, user);
    return user;
  }

  addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, channel);
    return channel;
  }

  addUsergroup(id: string, handle: string, members: string[]): void {
    this.usergroups.set(id, { handle, members });
  }

  /** Resolves once `count` recorded calls (past or future) satisfy `predicate`. */
  waitForCalls(predicate: (call: ApiCall) => boolean, count = 1): Promise<ApiCall[]> {
    return waitFor(this, 'call', () => this.calls.filter(predicate), count);
  }

  /** Resolves once `count` messages (posted, updated or responded) satisfy `predicate`. */
  waitForMessages(predicate: (message: Message) => boolean, count = 1): Promise<Message[]> {
    return waitFor(this, 'response', () => this.messages.filter(predicate), count);
  }

  /** Resolves once `count` calls (past or future) had a fault injected and satisfy `predicate`. */
  waitForFaults(predicate: (hit: FaultHit) => boolean, count = 1): Promise<FaultHit[]> {
    return waitFor(this, 'fault', () => this.faultHits.filter(predicate), count);
  }

  /** The next place in the order calls were answered (ApiCall.seq, RefusedCall.seq). */
  nextSeq(): number {
    this.#seq += 1;
    return this.#seq;
  }

  callsTo(method: string): ApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }
}

function waitFor<T>(
  emitter: EventEmitter<SlackEvents>,
  event: 'call' | 'response' | 'fault',
  matching: () => T[],
  count: number,
): Promise<T[]> {
  return new Promise((resolve) => {
    const check = () => {
      const found = matching();
      if (found.length < count) return false;
      emitter.off(event, check);
      resolve(found);
      return true;
    };
    if (!check()) emitter.on(event, check);
  });
}
