// Block Kit as terminal text, for the local console: headers, sections, fields, context, dividers,
// Slack mrkdwn and its <…> escapes made readable, and buttons numbered so they can be pressed.

import { decodeEntities } from '../../text.js';

type Json = Record<string, unknown>;

export interface RenderOptions {
  /** Display names for user ids (`<@U1>` → `@alice`). */
  users?: ReadonlyMap<string, string>;
  /** Display names for channel ids (`<#C1>` → `#ops`). */
  channels?: ReadonlyMap<string, string>;
  /** Handles for user-group ids (`<!subteam^S1>` → `@sre`). */
  groups?: ReadonlyMap<string, string>;
  /** Called for each button, in order; returns the number it is pressed by. */
  numberButton?: (button: {
    actionId: string;
    blockId: string;
    value?: string;
    text: string;
  }) => number | undefined;
  width?: number;
  /** Where the console wrote an uploaded file, by its id: an image block naming it shows the path. */
  fileAt?: (fileId: string) => string | undefined;
}

/** The emoji the bot's messages use, so a terminal shows them as Slack would. */
const EMOJI: Readonly<Record<string, string>> = {
  white_check_mark: '✅',
  warning: '⚠️',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  mag: '🔍',
  x: '❌',
  double_vertical_bar: '⏸️',
  zzz: '💤',
  white_circle: '⚪',
  large_yellow_circle: '🟡',
  large_green_circle: '🟢',
  wave: '👋',
  sunrise: '🌅',
  rotating_light: '🚨',
  no_entry_sign: '🚫',
  no_entry: '⛔',
  key: '🔑',
  information_source: 'ℹ️',
  heavy_multiplication_x: '✖️',
  grey_question: '❔',
  calendar: '📅',
  broom: '🧹',
  bar_chart: '📊',
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Slack mrkdwn and its escapes as plain text: links, mentions, dates, entities. */
export function mrkdwnToText(text: string, options: RenderOptions = {}): string {
  return decodeEntities(
    text
      .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
      .replace(
        /<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>/g,
        (_m, id: string, handle: string | undefined) =>
          handle ?? `@${options.groups?.get(id) ?? 'group'}`,
      )
      .replace(/<!(channel|here|everyone)>/g, '@$1')
      .replace(
        /<@([A-Z0-9]+)(?:\|[^>]*)?>/g,
        (_m, id: string) => `@${options.users?.get(id) ?? id}`,
      )
      .replace(
        /<#([A-Z0-9]+)(?:\|([^>]*))?>/g,
        (_m, id: string, name: string | undefined) => `#${name ?? options.channels?.get(id) ?? id}`,
      )
      .replace(/<([a-z][a-z0-9+.-]*:[^|>]+)\|([^>]+)>/gi, '$2 ($1)')
      .replace(/<([a-z][a-z0-9+.-]*:[^|>]+)>/gi, '$1')
      .replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole)
      // Bold and italic markers go; `code` keeps its backticks, which read well in a terminal.
      .replace(/(^|[^\w*])\*([^*\n]+)\*(?=$|[^\w*])/gm, '$1$2')
      .replace(/(^|[^\w_])_([^_\n]+)_(?=$|[^\w_])/gm, '$1$2')
      // A code block on lines of its own, indented.
      .replace(
        /```\n?([\s\S]*?)\n?```/g,
        (_m, code: string) => `\n    ${code.replaceAll('\n', '\n    ')}\n`,
      )
      .replace(/^\n|\n$/g, '')
      // A quote (a real `>`: a typed one arrives as &gt;).
      .replace(/^>\s?/gm, '▍ '),
  );
}

function textOf(value: unknown, options: RenderOptions): string {
  if (!isObject(value) || typeof value.text !== 'string') return '';
  return value.type === 'mrkdwn' ? mrkdwnToText(value.text, options) : value.text;
}

function button(element: Json, blockId: string, options: RenderOptions): string {
  const text = textOf(element.text, options);
  const number = options.numberButton?.({
    actionId: String(element.action_id ?? ''),
    blockId,
    ...(typeof element.value === 'string' ? { value: element.value } : {}),
    text,
  });
  return number === undefined ? `[${text}]` : `[${number}] ${text}`;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** Renders blocks (or, with none, the fallback text) as lines of terminal text. */
export function renderBlocks(
  blocks: unknown[] | undefined,
  fallback: string | undefined,
  options: RenderOptions = {},
): string {
  if (!blocks || blocks.length === 0) return mrkdwnToText(fallback ?? '', options);
  const width = options.width ?? 72;
  const out: string[] = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const blockId = String(block.block_id ?? '');
    switch (block.type) {
      case 'header': {
        const title = textOf(block.text, options);
        out.push(title, '═'.repeat(Math.min(width, Math.max(3, title.length))));
        break;
      }
      case 'section': {
        const lines: string[] = [];
        if (block.text) lines.push(textOf(block.text, options));
        if (Array.isArray(block.fields))
          lines.push(block.fields.map((f) => textOf(f, options)).join('   '));
        if (isObject(block.accessory) && block.accessory.type === 'button') {
          lines.push(`  ${button(block.accessory, blockId, options)}`);
        }
        out.push(lines.join('\n'));
        break;
      }
      case 'context':
        if (Array.isArray(block.elements)) {
          out.push(
            indent(
              block.elements
                .map((e) =>
                  isObject(e) && e.type === 'image'
                    ? `[image: ${String(e.alt_text ?? '')}]`
                    : textOf(e, options),
                )
                .join(' · '),
              '  │ ',
            ),
          );
        }
        break;
      case 'divider':
        out.push('─'.repeat(width));
        break;
      case 'actions':
        if (Array.isArray(block.elements)) {
          out.push(
            block.elements
              .filter(isObject)
              .map((e) =>
                e.type === 'button' ? button(e, blockId, options) : `[${String(e.type)}]`,
              )
              .join('  '),
          );
        }
        break;
      case 'image': {
        const file = isObject(block.slack_file) ? String(block.slack_file.id) : undefined;
        const path = file === undefined ? undefined : options.fileAt?.(file);
        out.push(`[image: ${String(block.alt_text ?? '')}]${path ? ` ${path}` : ''}`);
        break;
      }
      default:
        out.push(`[${String(block.type)}]`);
    }
  }
  return out.join('\n');
}
