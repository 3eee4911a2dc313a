// Numbered buttons: the numbers shown beside buttons, and pressing one (after its confirm, if any).
import { findAction } from '../fake-slack/payloads.js';
import type { FakeView, Message } from '../fake-slack/server.js';
import type { ConsoleContext, Json } from './context.js';
import { renderBlocks } from './render.js';
import { NAMES } from './world.js';

export type ButtonTarget =
  | { kind: 'message'; message: Message; actionId: string }
  | { kind: 'view'; viewId: string; actionId: string };

export class Buttons {
  /**
   * Buttons by number. Numbering starts again at 1 with the first buttons shown after a typed
   * line, so a script can say "1" for the first button of what it just saw; until new buttons
   * appear, the numbers shown last stay pressable.
   */
  readonly #byNumber = new Map<number, ButtonTarget>();
  #next = 1;
  #line = 0;
  #numberedLine = -1;
  /** The button whose confirm dialog waits for y or n. */
  #confirming: ButtonTarget | undefined;

  constructor(private readonly context: ConsoleContext) {}

  /** A line was typed: the next buttons shown are numbered from 1 again. */
  newLine(): void {
    this.#line += 1;
  }

  /** Whether a confirm dialog waits for its answer. */
  get confirming(): boolean {
    return this.#confirming !== undefined;
  }

  /** The number to show beside a button. */
  number(target: ButtonTarget): number {
    if (this.#numberedLine !== this.#line) {
      this.#numberedLine = this.#line;
      this.#byNumber.clear();
      this.#next = 1;
    }
    const number = this.#next++;
    this.#byNumber.set(number, target);
    return number;
  }

  /** Presses the button of that number, or shows its confirm dialog first. */
  async pressNumber(number: number): Promise<void> {
    const target = this.#byNumber.get(number);
    if (!target) {
      this.context.print(`There is no button ${number}.`);
      return;
    }
    const element = this.#element(target);
    if (!element) {
      this.context.print(`Button ${number} is gone: its message changed since.`);
      return;
    }
    const confirm = element.confirm as Json | undefined;
    if (confirm) {
      const title = (confirm.title as Json | undefined)?.text;
      const body = renderBlocks([{ type: 'section', text: confirm.text }], undefined, {
        ...NAMES,
      });
      this.context.print(`${title ? `${String(title)}: ` : ''}${body}`);
      this.#confirming = target;
      return;
    }
    await this.#press(target);
  }

  /** The answer to the confirm dialog: yes presses the button, anything else does not. */
  async confirm(answer: string): Promise<void> {
    const target = this.#confirming;
    this.#confirming = undefined;
    if (target && /^y(es)?$/i.test(answer)) await this.#press(target);
    else this.context.print('  (not done)');
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
    const slack = this.context.slack;
    return slack.views.get(viewId) ?? [...slack.homes.values()].find((home) => home.id === viewId);
  }

  async #press(target: ButtonTarget): Promise<void> {
    const { payloads } = this.context;
    const user = { user: this.context.user().id };
    await this.context.deliver(
      target.kind === 'message'
        ? payloads.blockAction(target.message, target.actionId, user)
        : payloads.viewAction(target.viewId, target.actionId, user),
    );
  }
}
