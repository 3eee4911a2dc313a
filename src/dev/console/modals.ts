// Open modals filled in at the prompt: one field at a time, then submitted as Slack would.
import { ACCOUNTS_IDS, LOGIN_IDS } from '../../blocks/ids.js';
import type { FakeView } from '../fake-slack/server.js';
import type { ConsoleContext, Json } from './context.js';
import { CONSOLE_HELP } from './help.js';
import {
  type Answer,
  answerField,
  type Choice,
  choicesFor,
  type Directory,
  type Field,
  fieldsOf,
} from './modal-form.js';
import type { Screen } from './screen.js';
import { CONSOLE_CHANNELS, CONSOLE_USERS } from './world.js';

interface OpenModal {
  viewId: string;
  fields: Field[];
  /** Indexes of the fields still to ask, the current one first; empty: ready to submit. */
  pending: number[];
  values: Record<string, Record<string, Json>>;
  /** Whether the current question has been printed. */
  asked: boolean;
}

/** Fields whose answers are never echoed: the CDN keys of /cdn login and of /cdn accounts. */
const SECRET_FIELDS = new Set<string>([LOGIN_IDS.keyInput, ACCOUNTS_IDS.keyInput]);

const DIRECTORY: Directory = { channels: CONSOLE_CHANNELS, users: CONSOLE_USERS };

export class Modals {
  /** Open modals, the top one last (views.push stacks them). */
  readonly #stack: OpenModal[] = [];

  constructor(
    private readonly context: ConsoleContext,
    private readonly screen: Screen,
  ) {}

  get isOpen(): boolean {
    return this.#stack.length > 0;
  }

  /** The prompt while a modal is open: for its current field, or for submitting it. */
  prompt(): string | undefined {
    const modal = this.#stack.at(-1);
    if (!modal) return undefined;
    const field = modal.fields[modal.pending[0] ?? -1];
    return field ? '│ › ' : '│ submit? › ';
  }

  /** Whether the next answer is a secret (not to be echoed). */
  get answeringSecret(): boolean {
    const modal = this.#stack.at(-1);
    return !!modal?.fields[modal.pending[0] ?? -1]?.secret;
  }

  isShowing(viewId: string): boolean {
    return this.#stack.some((m) => m.viewId === viewId);
  }

  /** Shows a view and starts asking its fields; `replace` swaps out the top modal. */
  open(view: FakeView, replace: boolean): void {
    const fields = fieldsOf(view.view, SECRET_FIELDS);
    const modal: OpenModal = {
      viewId: view.id,
      fields,
      pending: fields.map((_, i) => i),
      values: {},
      asked: false,
    };
    const at = this.#stack.findIndex((m) => m.viewId === view.id);
    if (at >= 0) this.#stack[at] = modal;
    else if (replace && this.#stack.length > 0) this.#stack[this.#stack.length - 1] = modal;
    else this.#stack.push(modal);
    this.screen.view(view.view, 'modal');
  }

  /** Prints the question for the top modal's current field, or the submit question. */
  async askIfNeeded(): Promise<void> {
    const modal = this.#stack.at(-1);
    if (!modal || modal.asked) return;
    modal.asked = true;
    const view = this.context.slack.views.get(modal.viewId)?.view ?? {};
    const field = modal.fields[modal.pending[0] ?? -1];
    if (!field) {
      const submit = (view.submit as Json | undefined)?.text;
      if (typeof submit !== 'string') {
        // Nothing to fill and nothing to submit: a notice, closed once read.
        this.#stack.pop();
        this.context.print('└─ (closed)');
        await this.askIfNeeded();
        return;
      }
      this.context.print(`│ Enter: ${submit} · /cancel: close`);
      return;
    }
    const notes = [field.hint, field.optional ? 'optional' : undefined].filter(Boolean);
    this.context.print(`│ ${field.label}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
    const choices = await choicesFor(field, DIRECTORY, (f, q) => this.#loadOptions(f, q));
    if (choices.length > 0) this.#printChoices(choices, field.initial);
    else if (field.kind === 'external') this.context.print('│   (no options)');
    else if (typeof field.initial === 'string')
      this.context.print(
        `│   Enter keeps: ${field.initial.replaceAll('\n', '\n│                ')}`,
      );
  }

  /** A line typed while a modal is open: the current field's answer, or submit, or /cancel. */
  async answer(line: string): Promise<void> {
    const modal = this.#stack.at(-1) as OpenModal;
    if (line.trim() === '/cancel') {
      this.#stack.pop();
      this.context.print('└─ (closed without submitting)');
      return;
    }
    if (line.trim() === '/help') {
      this.context.print(CONSOLE_HELP);
      return;
    }
    // As in Slack, nothing else can be typed while a modal is open; answers never start with /.
    if (line.trim().startsWith('/')) {
      this.context.print('│ A modal is open: answer it, or /cancel it first.');
      return;
    }
    const field = modal.fields[modal.pending[0] ?? -1];
    if (!field) {
      if (line.trim() === '' || /^(y|yes|submit)$/i.test(line.trim())) await this.#submit(modal);
      else this.context.print('│ Enter submits; /cancel closes.');
      return;
    }
    const answer: Answer = await answerField(field, line, DIRECTORY, (f, q) =>
      this.#loadOptions(f, q),
    );
    if (!answer.ok) {
      this.context.print(`│ ${answer.problem}`);
      if (answer.choices) this.#printChoices(answer.choices);
      return;
    }
    modal.values[field.blockId] = { [field.actionId]: answer.state };
    modal.pending.shift();
    modal.asked = false;
  }

  #close(viewId: string): void {
    const at = this.#stack.findIndex((m) => m.viewId === viewId);
    if (at >= 0) this.#stack.splice(at, 1);
  }

  #printChoices(choices: readonly Choice[], initial?: string | Choice): void {
    const chosen = typeof initial === 'object' ? initial.value : undefined;
    this.context.print(
      choices
        .map(
          (choice, i) =>
            `│   ${i + 1}. ${choice.text}${choice.value === chosen ? '  (Enter keeps this)' : ''}`,
        )
        .join('\n'),
    );
  }

  /** An external select's options, asked of the app as Slack's type-ahead does. */
  async #loadOptions(field: Field, query: string): Promise<Choice[]> {
    const modal = this.#stack.at(-1);
    const acked = (await this.context.deliver(
      this.context.payloads.blockSuggestion(field.actionId, query, {
        user: this.context.user().id,
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

  async #submit(modal: OpenModal): Promise<void> {
    await this.context.deliver(
      this.context.payloads.viewSubmission(modal.viewId, modal.values, {
        user: this.context.user().id,
      }),
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
        this.context.print(`│ ✖ ${label}: ${message}`);
      }
      // Only the refused fields are asked again; the other answers stand.
      modal.pending = modal.fields.flatMap((f, i) => (f.blockId in errors ? [i] : []));
      modal.asked = false;
      return;
    }
    if ((action === 'update' || action === 'push') && typeof response?.view === 'object') {
      const result = this.context.slack.applyResponseAction(modal.viewId, {
        response_action: action,
        view: response.view as Json,
      });
      if (!result.ok) {
        this.context.print(`│ Slack refused the app's answer: ${result.errors.join('; ')}`);
        return;
      }
      this.open(result.view, action === 'update');
      return;
    }
    if (action === 'clear') this.#stack.length = 0;
    else this.#close(modal.viewId);
    this.context.print('└─ (submitted)');
  }
}
