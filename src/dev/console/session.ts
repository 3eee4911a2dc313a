// One person at a terminal acting as a Slack user: typed lines become the payloads Slack would
// send, and what the app does at the (fake) Slack Web API is shown as text. Nothing of the bot is
// reimplemented here: commands, clicks, submissions and type-ahead all go through Bolt.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOGIN_IDS, PURGE_IDS } from '../../blocks/ids.js';
import { findAction, SlackPayloads } from '../fake-slack/payloads.js';
import type { ApiCall, FakeSlack, FakeView, Message } from '../fake-slack/server.js';
import {
  type Answer,
  answerField,
  type Choice,
  choicesFor,
  type Directory,
  type Field,
  fieldsOf,
} from './modal-form.js';
import type { ConsoleReceiver } from './receiver.js';
import { renderBlocks } from './render.js';
import {
  CHANNEL_NAMES,
  CONSOLE_CHANNEL,
  CONSOLE_CHANNELS,
  CONSOLE_USERS,
  type ConsoleUser,
  escapeCommandText,
  NAMES,
  USER_NAMES,
  userNamed,
} from './world.js';

type Json = Record<string, unknown>;

type ButtonTarget =
  | { kind: 'message'; message: Message; actionId: string }
  | { kind: 'view'; viewId: string; actionId: string };

interface OpenModal {
  viewId: string;
  fields: Field[];
  /** Indexes of the fields still to ask, the current one first; empty: ready to submit. */
  pending: number[];
  values: Record<string, Record<string, Json>>;
  /** Whether the current question has been printed. */
  asked: boolean;
}

export interface ConsoleSessionOptions {
  slack: FakeSlack;
  receiver: ConsoleReceiver;
  /** Where uploaded files are written (./data/out). */
  outDir: string;
  /** Writes a block of output text. */
  print: (text: string) => void;
  width?: number;
}

export const CONSOLE_HELP = [
  'Console commands',
  '  /cdn …           run the bot, as in Slack (try /cdn help)',
  '  1, 2, …          press the button with that number',
  '  /as <name>       act as someone else: alice (admin), bob, carol',
  '  /home            open the App Home tab',
  '  /say <text>      post a message in #ops as yourself',
  '  /shortcut        run "Purge URLs in this message" on your last /say',
  '  /cancel          close the open modal',
  '  /help            this list',
  '  /quit            leave (Ctrl-D works too)',
  'In a modal, answer each field in turn: Enter keeps the default (or skips an optional field);',
  'a list takes a number or a name. #ops and @bob are written as in Slack.',
].join('\n');

const SECRET_FIELDS = new Set<string>([LOGIN_IDS.keyInput]);

const rule = (label: string, width: number) =>
  `── ${label} ${'─'.repeat(Math.max(3, width - label.length - 4))}`;

export class ConsoleSession {
  readonly #slack: FakeSlack;
  readonly #receiver: ConsoleReceiver;
  readonly #payloads: SlackPayloads;
  readonly #outDir: string;
  readonly #print: (text: string) => void;
  readonly #width: number;
  #user: ConsoleUser = CONSOLE_USERS[0] as ConsoleUser;
  /**
   * Buttons by number. Numbering starts again at 1 with the first buttons shown after a typed
   * line, so a script can say "1" for the first button of what it just saw; until new buttons
   * appear, the numbers shown last stay pressable.
   */
  readonly #buttons = new Map<number, ButtonTarget>();
  #nextButton = 1;
  #line = 0;
  #numberedLine = -1;
  /** How many versions of each message have been shown. */
  readonly #shown = new Map<Message, number>();
  /** Open modals, the top one last (views.push stacks them). */
  readonly #modals: OpenModal[] = [];
  #confirming: ButtonTarget | undefined;
  #lastSaid: Message | undefined;

  constructor(options: ConsoleSessionOptions) {
    this.#slack = options.slack;
    this.#receiver = options.receiver;
    this.#payloads = new SlackPayloads(options.slack, options.slack.teamId);
    this.#outDir = options.outDir;
    this.#print = options.print;
    this.#width = options.width ?? 72;
    this.#slack.on('response', (message) => this.#onMessage(message));
    this.#slack.on('call', (call) => this.#onCall(call));
  }

  get user(): ConsoleUser {
    return this.#user;
  }

  /** The prompt for the next line: who is typing where, or the modal field being asked. */
  prompt(): string {
    const modal = this.#modals.at(-1);
    if (modal) {
      const field = modal.fields[modal.pending[0] ?? -1];
      return field ? '│ › ' : '│ submit? › ';
    }
    if (this.#confirming) return 'sure? (y/n) › ';
    return `${this.#user.name} in #${CONSOLE_CHANNEL.name} › `;
  }

  /** Whether the next answer is a secret (not to be echoed). */
  get answeringSecret(): boolean {
    const modal = this.#modals.at(-1);
    return !!modal?.fields[modal.pending[0] ?? -1]?.secret;
  }

  /** Handles one typed line; resolves when everything it started has finished. */
  async handle(line: string): Promise<'quit' | undefined> {
    this.#line += 1;
    const text = line.trim();
    if (text === '#' || text.startsWith('# ')) return undefined;
    if (this.#modals.length > 0) {
      await this.#answerModal(line);
    } else if (this.#confirming) {
      const target = this.#confirming;
      this.#confirming = undefined;
      if (/^y(es)?$/i.test(text)) await this.#press(target);
      else this.#print('  (not done)');
    } else {
      const result = await this.#command(text);
      if (result === 'quit') return result;
    }
    await this.#askIfNeeded();
    return undefined;
  }

  async #command(text: string): Promise<'quit' | undefined> {
    if (text === '') return undefined;
    const [word = '', ...rest] = text.split(/\s+/);
    const argument = text.slice(word.length).trim();
    switch (word.toLowerCase()) {
      case '/cdn':
        await this.#deliver(
          this.#payloads.slashCommand(escapeCommandText(argument), {
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
          this.#payloads.eventCallback({
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
        else this.#lastSaid = this.#slack.postAsUser(CONSOLE_CHANNEL.id, this.#user.id, argument);
        return undefined;
      case '/shortcut':
        await this.#shortcut();
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
          await this.#pressNumber(Number(text));
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
      this.#payloads.messageShortcut(
        PURGE_IDS.shortcut,
        { channel: said.channel, ts: said.ts, text: said.text ?? '', user: this.#user.id },
        { user: this.#user.id },
      ),
    );
  }

  async #pressNumber(number: number): Promise<void> {
    const target = this.#buttons.get(number);
    if (!target) {
      this.#print(`There is no button ${number}.`);
      return;
    }
    const element = this.#element(target);
    if (!element) {
      this.#print(`Button ${number} is gone: its message changed since.`);
      return;
    }
    const confirm = element.confirm as Json | undefined;
    if (confirm) {
      const title = (confirm.title as Json | undefined)?.text;
      const body = renderBlocks([{ type: 'section', text: confirm.text }], undefined, {
        ...NAMES,
      });
      this.#print(`${title ? `${String(title)}: ` : ''}${body}`);
      this.#confirming = target;
      return;
    }
    await this.#press(target);
  }

  #element(target: ButtonTarget): Json | undefined {
    const blocks =
      target.kind === 'message'
        ? target.message.deleted
          ? undefined
          : target.message.blocks
        : (this.#viewById(target.viewId)?.view.blocks as unknown[] | undefined);
    if (!blocks) return undefined;
    try {
      return findAction(blocks, target.actionId).element;
    } catch {
      return undefined;
    }
  }

  #viewById(viewId: string): FakeView | undefined {
    return (
      this.#slack.views.get(viewId) ??
      [...this.#slack.homes.values()].find((home) => home.id === viewId)
    );
  }

  async #press(target: ButtonTarget): Promise<void> {
    const user = { user: this.#user.id };
    await this.#deliver(
      target.kind === 'message'
        ? this.#payloads.blockAction(target.message, target.actionId, user)
        : this.#payloads.viewAction(target.viewId, target.actionId, user),
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

  // ── Modals ──────────────────────────────────────────────────────────────────────────────────

  #directory(): Directory {
    return { channels: CONSOLE_CHANNELS, users: CONSOLE_USERS };
  }

  #openModal(view: FakeView, replace: boolean): void {
    const fields = fieldsOf(view.view, SECRET_FIELDS);
    const modal: OpenModal = {
      viewId: view.id,
      fields,
      pending: fields.map((_, i) => i),
      values: {},
      asked: false,
    };
    const at = this.#modals.findIndex((m) => m.viewId === view.id);
    if (at >= 0) this.#modals[at] = modal;
    else if (replace && this.#modals.length > 0) this.#modals[this.#modals.length - 1] = modal;
    else this.#modals.push(modal);
    this.#showView(view.view, 'modal');
  }

  #closeModal(viewId: string): void {
    const at = this.#modals.findIndex((m) => m.viewId === viewId);
    if (at >= 0) this.#modals.splice(at, 1);
  }

  /** Prints the question for the top modal's current field, or the submit question. */
  async #askIfNeeded(): Promise<void> {
    const modal = this.#modals.at(-1);
    if (!modal || modal.asked) return;
    modal.asked = true;
    const view = this.#slack.views.get(modal.viewId)?.view ?? {};
    const field = modal.fields[modal.pending[0] ?? -1];
    if (!field) {
      const submit = (view.submit as Json | undefined)?.text;
      if (typeof submit !== 'string') {
        // Nothing to fill and nothing to submit: a notice, closed once read.
        this.#modals.pop();
        this.#print('└─ (closed)');
        await this.#askIfNeeded();
        return;
      }
      this.#print(`│ Enter: ${submit} · /cancel: close`);
      return;
    }
    const notes = [field.hint, field.optional ? 'optional' : undefined].filter(Boolean);
    this.#print(`│ ${field.label}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
    const choices = await choicesFor(field, this.#directory(), (f, q) => this.#loadOptions(f, q));
    if (choices.length > 0) this.#printChoices(choices, field.initial);
    else if (field.kind === 'external') this.#print('│   (no options)');
    else if (typeof field.initial === 'string')
      this.#print(`│   Enter keeps: ${field.initial.replaceAll('\n', '\n│                ')}`);
  }

  #printChoices(choices: readonly Choice[], initial?: string | Choice): void {
    const chosen = typeof initial === 'object' ? initial.value : undefined;
    this.#print(
      choices
        .map(
          (choice, i) =>
            `│   ${i + 1}. ${choice.text}${choice.value === chosen ? '  (Enter keeps this)' : ''}`,
        )
        .join('\n'),
    );
  }

  async #loadOptions(field: Field, query: string): Promise<Choice[]> {
    const modal = this.#modals.at(-1);
    const acked = (await this.#deliver(
      this.#payloads.blockSuggestion(field.actionId, query, {
        user: this.#user.id,
        blockId: field.blockId,
        ...(modal ? { viewId: modal.viewId } : {}),
      }),
    )) as Json | undefined;
    const options = [
      ...((acked?.options as Json[] | undefined) ?? []),
      ...((acked?.option_groups as Json[] | undefined) ?? []).flatMap(
        (group) => (group.options as Json[] | undefined) ?? [],
      ),
    ];
    return options.map((option) => ({
      text: String((option.text as Json | undefined)?.text ?? option.value),
      value: String(option.value),
    }));
  }

  async #answerModal(line: string): Promise<void> {
    const modal = this.#modals.at(-1) as OpenModal;
    if (line.trim() === '/cancel') {
      this.#modals.pop();
      this.#print('└─ (closed without submitting)');
      return;
    }
    if (line.trim() === '/help') {
      this.#print(CONSOLE_HELP);
      return;
    }
    // As in Slack, nothing else can be typed while a modal is open; answers never start with /.
    if (line.trim().startsWith('/')) {
      this.#print('│ A modal is open: answer it, or /cancel it first.');
      return;
    }
    const field = modal.fields[modal.pending[0] ?? -1];
    if (!field) {
      if (line.trim() === '' || /^(y|yes|submit)$/i.test(line.trim())) await this.#submit(modal);
      else this.#print('│ Enter submits; /cancel closes.');
      return;
    }
    const answer: Answer = await answerField(field, line, this.#directory(), (f, q) =>
      this.#loadOptions(f, q),
    );
    if (!answer.ok) {
      this.#print(`│ ${answer.problem}`);
      if (answer.choices) this.#printChoices(answer.choices);
      return;
    }
    modal.values[field.blockId] = { [field.actionId]: answer.state };
    modal.pending.shift();
    modal.asked = false;
  }

  async #submit(modal: OpenModal): Promise<void> {
    await this.#deliver(
      this.#payloads.viewSubmission(modal.viewId, modal.values, { user: this.#user.id }),
      (ack) => this.#applyAck(modal, ack as Json | undefined),
    );
  }

  /** What a submission's ack does to the modal: errors, a new view, or closing it. */
  #applyAck(modal: OpenModal, response: Json | undefined): void {
    const action = response?.response_action;
    if (action === 'errors' && typeof response?.errors === 'object' && response.errors) {
      const errors = response.errors as Record<string, string>;
      for (const [blockId, message] of Object.entries(errors)) {
        const label = modal.fields.find((f) => f.blockId === blockId)?.label ?? blockId;
        this.#print(`│ ✖ ${label}: ${message}`);
      }
      // Only the refused fields are asked again; the other answers stand.
      modal.pending = modal.fields.flatMap((f, i) => (f.blockId in errors ? [i] : []));
      modal.asked = false;
      return;
    }
    if ((action === 'update' || action === 'push') && typeof response?.view === 'object') {
      const result = this.#slack.applyResponseAction(modal.viewId, {
        response_action: action,
        view: response.view as Json,
      });
      if (!result.ok) {
        this.#print(`│ Slack refused the app's answer: ${result.errors.join('; ')}`);
        return;
      }
      this.#openModal(result.view, action === 'update');
      return;
    }
    if (action === 'clear') this.#modals.length = 0;
    else this.#closeModal(modal.viewId);
    this.#print('└─ (submitted)');
  }

  // ── What the app did at the Slack API ──────────────────────────────────────────────────────

  #onCall(call: ApiCall): void {
    if (call.response.ok !== true) {
      // A refused post or view is something a Slack user would notice (nothing appears).
      if (/^(chat|views|files)\./.test(call.method))
        this.#print(`(Slack refused ${call.method}: ${String(call.response.error)})`);
      return;
    }
    const view = call.response.view as Json | undefined;
    switch (call.method) {
      case 'views.open':
      case 'views.push': {
        const opened = view && this.#slack.views.get(String(view.id));
        if (opened) this.#openModal(opened, false);
        break;
      }
      case 'views.update': {
        const updated = view && this.#slack.views.get(String(view.id));
        if (updated && this.#modals.some((m) => m.viewId === updated.id))
          this.#openModal(updated, false);
        break;
      }
      case 'views.publish':
        if (call.args.user_id === this.#user.id && view) {
          const home = this.#slack.homes.get(this.#user.id);
          if (home) this.#showView(home.view, 'home', home.id);
        }
        break;
      case 'files.completeUploadExternal':
        this.#showUpload(call);
        break;
    }
  }

  #onMessage(message: Message): void {
    const versions = message.history.length + 1;
    const shown = this.#shown.get(message);
    if (message.deleted) {
      this.#print(rule(`${this.#where(message)} · a message was deleted`, this.#width));
      return;
    }
    if (message.via === 'user') {
      this.#shown.set(message, versions);
      this.#print(
        `${rule(`#${CHANNEL_NAMES.get(message.channel) ?? message.channel} · ${USER_NAMES.get(message.user ?? '') ?? message.user}`, this.#width)}\n${message.text ?? ''}`,
      );
      return;
    }
    if (shown === versions) return;
    this.#shown.set(message, versions);
    const notes = [
      this.#where(message),
      'cdn',
      shown !== undefined || versions > 1 ? 'updated' : undefined,
      message.ephemeralTo
        ? message.ephemeralTo === this.#user.id
          ? 'only you can see this'
          : `only ${USER_NAMES.get(message.ephemeralTo) ?? message.ephemeralTo} can see this`
        : undefined,
    ].filter(Boolean);
    const body = renderBlocks(message.blocks, message.text, {
      ...NAMES,
      width: this.#width,
      numberButton: ({ actionId }) => this.#number({ kind: 'message', message, actionId }),
    });
    this.#print(`${rule(notes.join(' · '), this.#width)}\n${body}`);
  }

  #where(message: Message): string {
    const name = CHANNEL_NAMES.get(message.channel);
    if (name) return `#${name}`;
    const user = USER_NAMES.get(message.channel);
    return user ? `DM to ${user}` : message.channel;
  }

  #number(target: ButtonTarget): number {
    if (this.#numberedLine !== this.#line) {
      this.#numberedLine = this.#line;
      this.#buttons.clear();
      this.#nextButton = 1;
    }
    const number = this.#nextButton++;
    this.#buttons.set(number, target);
    return number;
  }

  #showView(view: Json, surface: 'modal' | 'home', homeId?: string): void {
    const title = (view.title as Json | undefined)?.text;
    const shown = (Array.isArray(view.blocks) ? view.blocks : []).filter(
      (block) => (block as Json).type !== 'input',
    );
    const body = renderBlocks(shown, undefined, {
      ...NAMES,
      width: this.#width - 2,
      numberButton: ({ actionId }) =>
        homeId ? this.#number({ kind: 'view', viewId: homeId, actionId }) : undefined,
    });
    if (surface === 'home') {
      this.#print(`${rule('App Home', this.#width)}\n${body}`);
      return;
    }
    const lines = body === '' ? [] : body.split('\n').map((line) => `│ ${line}`);
    this.#print([`┌─ ${String(title ?? 'Modal')}`, ...lines].join('\n'));
  }

  #showUpload(call: ApiCall): void {
    const channel = String(call.args.channel_id ?? '');
    const comment =
      typeof call.args.initial_comment === 'string' ? call.args.initial_comment : undefined;
    const lines = [
      rule(`#${CHANNEL_NAMES.get(channel) ?? channel} · cdn shared a file`, this.#width),
    ];
    if (comment) lines.push(renderBlocks(undefined, comment, NAMES));
    mkdirSync(this.#outDir, { recursive: true });
    for (const entry of (call.args.files as Json[] | undefined) ?? []) {
      const file = this.#slack.files.get(String(entry.id));
      if (!file) continue;
      const path = join(this.#outDir, `${file.id}-${file.filename}`);
      writeFileSync(path, file.bytes);
      lines.push(`📎 ${file.title ?? file.filename}: ${path} (${describeFile(file.bytes)})`);
    }
    this.#print(lines.join('\n'));
  }
}

/** "PNG 1200×640, 84 kB" for a PNG (its IHDR chunk gives the size), else the size alone. */
export function describeFile(bytes: Buffer): string {
  const kb = `${Math.max(1, Math.round(bytes.length / 1000))} kB`;
  const png = bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
  return png ? `PNG ${bytes.readUInt32BE(16)}×${bytes.readUInt32BE(20)}, ${kb}` : kb;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
