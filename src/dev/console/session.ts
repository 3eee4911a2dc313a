// One person at a terminal acting as a Slack user: typed lines become the payloads Slack would
// send, and what the app does at the (fake) Slack Web API is shown as text. Nothing of the bot is
// reimplemented here: commands, clicks, submissions and type-ahead all go through Bolt.
// This module reads typed lines and runs console commands; buttons, modals and screen do the rest.
import { PURGE_IDS } from '../../blocks/ids.js';
import { SlackPayloads } from '../fake-slack/payloads.js';
import type { ApiCall, FakeSlack, Message } from '../fake-slack/server.js';
import type { Sandbox } from '../sandbox/server.js';
import { Buttons } from './buttons.js';
import type { ConsoleContext, Json } from './context.js';
import { CONSOLE_HELP } from './help.js';
import { Modals } from './modals.js';
import type { ConsoleReceiver } from './receiver.js';
import { Screen } from './screen.js';
import { shapeTraffic } from './traffic.js';
import { CONSOLE_CHANNEL, CONSOLE_USERS, type ConsoleUser, userNamed } from './world.js';

export { CONSOLE_HELP } from './help.js';
export { describeFile } from './screen.js';

export interface ConsoleSessionOptions {
  slack: FakeSlack;
  receiver: ConsoleReceiver;
  /** Where uploaded files are written (./data/out). */
  outDir: string;
  /** Writes a block of output text. */
  print: (text: string) => void;
  /** The embedded CDN sandbox, whose traffic /traffic shapes (absent with a CDN of one's own). */
  sandbox?: Sandbox;
  width?: number;
}

export class ConsoleSession {
  readonly #receiver: ConsoleReceiver;
  readonly #context: ConsoleContext;
  readonly #print: (text: string) => void;
  readonly #buttons: Buttons;
  readonly #modals: Modals;
  readonly #screen: Screen;
  readonly #sandbox: Sandbox | undefined;
  #user: ConsoleUser = CONSOLE_USERS[0] as ConsoleUser;
  #lastSaid: Message | undefined;

  constructor(options: ConsoleSessionOptions) {
    this.#receiver = options.receiver;
    this.#print = options.print;
    this.#sandbox = options.sandbox;
    this.#context = {
      slack: options.slack,
      payloads: new SlackPayloads(options.slack, options.slack.teamId),
      width: options.width ?? 72,
      print: options.print,
      user: () => this.#user,
      deliver: (body, onAck) => this.#deliver(body, onAck),
    };
    this.#buttons = new Buttons(this.#context);
    this.#screen = new Screen(this.#context, this.#buttons, options.outDir);
    this.#modals = new Modals(this.#context, this.#screen);
    options.slack.on('response', (message) => this.#screen.message(message));
    options.slack.on('call', (call) => this.#onCall(call));
    // A refused response_url post shows nothing in Slack, as a refused API call does.
    options.slack.on('responseUrlPost', (post) => {
      if (post.status >= 400) this.#print(`(Slack refused a response_url post: ${post.answer})`);
    });
  }

  get user(): ConsoleUser {
    return this.#user;
  }

  /** The prompt for the next line: who is typing where, or the modal field being asked. */
  prompt(): string {
    const modal = this.#modals.prompt();
    if (modal !== undefined) return modal;
    if (this.#buttons.confirming) return 'sure? (y/n) › ';
    return `${this.#user.name} in #${CONSOLE_CHANNEL.name} › `;
  }

  /** Whether the next answer is a secret (not to be echoed). */
  get answeringSecret(): boolean {
    return this.#modals.answeringSecret;
  }

  /** Handles one typed line; resolves when everything it started has finished. */
  async handle(line: string): Promise<'quit' | undefined> {
    this.#buttons.newLine();
    const text = line.trim();
    if (text === '#' || text.startsWith('# ')) return undefined;
    if (this.#modals.isOpen) {
      await this.#modals.answer(line);
    } else if (this.#buttons.confirming) {
      await this.#buttons.confirm(text);
    } else {
      const result = await this.#command(text);
      if (result === 'quit') return result;
    }
    await this.#modals.askIfNeeded();
    return undefined;
  }

  async #command(text: string): Promise<'quit' | undefined> {
    if (text === '') return undefined;
    const { slack, payloads } = this.#context;
    const [word = '', ...rest] = text.split(/\s+/);
    const argument = text.slice(word.length).trim();
    switch (word.toLowerCase()) {
      case '/cdn':
        await this.#deliver(
          // Typed as in Slack's composer: the fake Slack escapes it as Slack would.
          payloads.slashCommand(argument, {
            user: this.#user.id,
            channel: CONSOLE_CHANNEL.id,
          }),
        );
        return undefined;
      case '/as':
        this.#switchUser(rest[0] ?? '');
        return undefined;
      case '/home':
        await this.#deliver(
          payloads.eventCallback({
            type: 'app_home_opened',
            user: this.#user.id,
            channel: `D${this.#user.id}`,
            tab: 'home',
            event_ts: String(Date.now() / 1000),
          }),
        );
        return undefined;
      case '/say':
        if (!argument) this.#print('Usage: /say <text>');
        else this.#lastSaid = slack.postAsUser(CONSOLE_CHANNEL.id, this.#user.id, argument);
        return undefined;
      case '/shortcut':
        await this.#shortcut();
        return undefined;
      case '/traffic':
        this.#print(shapeTraffic(this.#sandbox, rest));
        return undefined;
      case '/help':
        this.#print(CONSOLE_HELP);
        return undefined;
      case '/quit':
      case '/exit':
        return 'quit';
      case '/cancel':
        this.#print('No modal is open.');
        return undefined;
      default:
        if (/^\d+$/.test(text)) {
          await this.#buttons.pressNumber(Number(text));
          return undefined;
        }
        this.#print(
          word.startsWith('/')
            ? `Unknown console command ${word}. /help lists them; the bot's are under /cdn.`
            : 'Type /cdn … to talk to the bot, a number to press a button, or /help.',
        );
        return undefined;
    }
  }

  #switchUser(name: string): void {
    const user = userNamed(name);
    if (!user) {
      this.#print(
        `Who? The console knows ${CONSOLE_USERS.map((u) => `${u.name} (${u.role})`).join(', ')}.`,
      );
      return;
    }
    this.#user = user;
    this.#print(`You are now ${user.name} (${user.role}).`);
  }

  async #shortcut(): Promise<void> {
    const said = this.#lastSaid;
    if (!said || said.user !== this.#user.id) {
      this.#print('First /say a message with URLs in it; the shortcut then runs on it.');
      return;
    }
    await this.#deliver(
      this.#context.payloads.messageShortcut(
        PURGE_IDS.shortcut,
        { channel: said.channel, ts: said.ts, text: said.text ?? '', user: this.#user.id },
        { user: this.#user.id },
      ),
    );
  }

  /**
   * Hands a payload to the app and waits for all of its work; a crash is shown, not thrown.
   * `onAck` sees the acknowledgement as Slack would: before the listener's later API calls.
   */
  async #deliver(body: Json, onAck?: (response: unknown) => void): Promise<unknown> {
    const delivery = this.#receiver.deliver(body);
    const acked = await delivery.acked;
    onAck?.(acked);
    try {
      await delivery.done;
    } catch (error) {
      this.#print(`(the app failed: ${(error as Error).message})`);
    }
    return acked;
  }

  /** What the app did at the Slack API, where a Slack user would see it. */
  #onCall(call: ApiCall): void {
    if (call.response.ok !== true) {
      // A refused post or view is something a Slack user would notice (nothing appears).
      if (/^(chat|views|files)\./.test(call.method))
        this.#print(`(Slack refused ${call.method}: ${String(call.response.error)})`);
      return;
    }
    const slack = this.#context.slack;
    const view = call.response.view as Json | undefined;
    switch (call.method) {
      case 'views.open':
      case 'views.push': {
        const opened = view && slack.views.get(String(view.id));
        if (opened) this.#modals.open(opened, false);
        break;
      }
      case 'views.update': {
        const updated = view && slack.views.get(String(view.id));
        if (updated && this.#modals.isShowing(updated.id)) this.#modals.open(updated, false);
        break;
      }
      case 'views.publish':
        if (call.args.user_id === this.#user.id && view) {
          const home = slack.homes.get(this.#user.id);
          if (home) this.#screen.view(home.view, 'home', home.id);
        }
        break;
      case 'files.completeUploadExternal':
        this.#screen.upload(call);
        break;
    }
  }
}
