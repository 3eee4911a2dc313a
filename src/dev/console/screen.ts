// What the console shows of Slack: messages as they are posted and changed, views, shared files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiCall, Message } from '../fake-slack/server.js';
import type { Buttons } from './buttons.js';
import type { ConsoleContext, Json } from './context.js';
import { renderBlocks } from './render.js';
import { CHANNEL_NAMES, NAMES, USER_NAMES } from './world.js';

const rule = (label: string, width: number) =>
  `── ${label} ${'─'.repeat(Math.max(3, width - label.length - 4))}`;

export class Screen {
  /** How many versions of each message have been shown. */
  readonly #shown = new Map<Message, number>();
  /** Where each uploaded file was written, by file id. */
  readonly #written = new Map<string, string>();

  constructor(
    private readonly context: ConsoleContext,
    private readonly buttons: Buttons,
    /** Where shared files are written (./data/out). */
    private readonly outDir: string,
  ) {}

  /** A message posted, changed or deleted; a version already shown is not shown again. */
  message(message: Message): void {
    const { print, width } = this.context;
    const versions = message.history.length + 1;
    const shown = this.#shown.get(message);
    if (message.deleted) {
      print(rule(`${this.#where(message)} · a message was deleted`, width));
      return;
    }
    if (message.via === 'user') {
      this.#shown.set(message, versions);
      print(
        `${rule(`#${CHANNEL_NAMES.get(message.channel) ?? message.channel} · ${USER_NAMES.get(message.user ?? '') ?? message.user}`, width)}\n${message.text ?? ''}`,
      );
      return;
    }
    if (shown === versions) return;
    this.#shown.set(message, versions);
    const notes = [
      this.#where(message),
      message.threadTs ? 'in a thread' : undefined,
      'cdn',
      shown !== undefined || versions > 1 ? 'updated' : undefined,
      message.ephemeralTo
        ? message.ephemeralTo === this.context.user().id
          ? 'only you can see this'
          : `only ${USER_NAMES.get(message.ephemeralTo) ?? message.ephemeralTo} can see this`
        : undefined,
    ].filter(Boolean);
    const body = renderBlocks(message.blocks, message.text, {
      ...NAMES,
      width,
      numberButton: ({ actionId }) => this.buttons.number({ kind: 'message', message, actionId }),
      fileAt: (id) => this.#written.get(id),
    });
    print(`${rule(notes.join(' · '), width)}\n${body}`);
  }

  /** A modal's text (its inputs are asked one by one), or an App Home with numbered buttons. */
  view(view: Json, surface: 'modal' | 'home', homeId?: string): void {
    const { print, width } = this.context;
    const title = (view.title as Json | undefined)?.text;
    const shown = (Array.isArray(view.blocks) ? view.blocks : []).filter(
      (block) => (block as Json).type !== 'input',
    );
    const body = renderBlocks(shown, undefined, {
      ...NAMES,
      width: width - 2,
      numberButton: ({ actionId }) =>
        homeId ? this.buttons.number({ kind: 'view', viewId: homeId, actionId }) : undefined,
    });
    if (surface === 'home') {
      print(`${rule('App Home', width)}\n${body}`);
      return;
    }
    const lines = body === '' ? [] : body.split('\n').map((line) => `│ ${line}`);
    print([`┌─ ${String(title ?? 'Modal')}`, ...lines].join('\n'));
  }

  /**
   * Files the app uploaded: written to the output folder; listed with their sizes where shared.
   * One completed without a channel is private: Slack shows it nowhere but in a message's image
   * block (https://docs.slack.dev/reference/methods/files.completeUploadExternal, channel_id).
   */
  upload(call: ApiCall): void {
    const channel = typeof call.args.channel_id === 'string' ? call.args.channel_id : undefined;
    mkdirSync(this.outDir, { recursive: true });
    const files: string[] = [];
    for (const entry of (call.args.files as Json[] | undefined) ?? []) {
      const file = this.context.slack.files.get(String(entry.id));
      if (!file) continue;
      const path = join(this.outDir, `${file.id}-${file.filename}`);
      writeFileSync(path, file.bytes);
      this.#written.set(file.id, path);
      files.push(`📎 ${file.title ?? file.filename}: ${path} (${describeFile(file.bytes)})`);
      // A CSV (the audit export): its first lines, as Slack's preview shows them.
      if (file.filename.endsWith('.csv')) files.push(...csvPreview(file.bytes));
    }
    if (channel === undefined) return;
    const comment =
      typeof call.args.initial_comment === 'string' ? call.args.initial_comment : undefined;
    const where = `${this.#place(channel)}${call.args.thread_ts ? ' · in a thread' : ''}`;
    this.context.print(
      [
        rule(`${where} · cdn shared a file`, this.context.width),
        ...(comment ? [renderBlocks(undefined, comment, NAMES)] : []),
        ...files,
      ].join('\n'),
    );
  }

  #where(message: Message): string {
    return this.#place(message.channel);
  }

  /** A channel by its name, or the app's DM with a person (an audit export arrives there). */
  #place(channel: string): string {
    const name = CHANNEL_NAMES.get(channel);
    if (name) return `#${name}`;
    // The app's DM with a person: their id, or the DM's (conversations.open: D + their id).
    const user =
      USER_NAMES.get(channel) ??
      (channel.startsWith('D') ? USER_NAMES.get(channel.slice(1)) : undefined);
    return user ? `DM to ${user}` : channel;
  }
}

/** "PNG 1200×640, 84 kB" for a PNG (its IHDR chunk gives the size), else the size alone. */
export function describeFile(bytes: Buffer): string {
  const kb = `${Math.max(1, Math.round(bytes.length / 1000))} kB`;
  const png = bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
  return png ? `PNG ${bytes.readUInt32BE(16)}×${bytes.readUInt32BE(20)}, ${kb}` : kb;
}

/** The first lines of a CSV file, each cut to 120 characters, and how many more there are. */
export function csvPreview(bytes: Buffer, shown = 4): string[] {
  const text = bytes.subarray(0, 64 * 1024).toString('utf8');
  const lines = text.split('\r\n').filter((line) => line !== '');
  const total = bytes.toString('utf8').split('\r\n').length - 1;
  const head = lines
    .slice(0, shown)
    .map((line) => `   ${line.length > 120 ? `${line.slice(0, 119)}…` : line}`);
  return total > shown ? [...head, `   … ${total - shown} more lines`] : head;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
