// Text for Block Kit: mrkdwn escaped exactly once by construction (md``), Slack limits, dates.
import type { MrkdwnElement, PlainTextElement } from '@slack/types';
import { decodeEntities } from '../text.js';

const TRUSTED = Symbol('mrkdwn');

/**
 * mrkdwn ready for Slack. Only md``, the helpers below and escaping make one, so a person's or the
 * CDN's text is escaped once on its way in, and a Mrkdwn is never escaped again.
 *
 * Slack uses `&`, `<` and `>` as mrkdwn's control characters; any other use of them must be sent
 * as `&amp;`, `&lt;`, `&gt;` ("Formatting text for app surfaces" → "Escaping text",
 * https://docs.slack.dev/messaging/formatting-message-text#escaping). That applies to mrkdwn text
 * objects and to a message's top-level `text`, which Slack parses as mrkdwn unless `mrkdwn: false`
 * (https://docs.slack.dev/tools/node-slack-sdk/reference/web-api/type-aliases/ChatPostMessageArguments).
 */
export class Mrkdwn {
  constructor(
    key: typeof TRUSTED,
    readonly text: string,
  ) {
    if (key !== TRUSTED) throw new TypeError('Mrkdwn is made by md`…` and the helpers of text.ts');
  }

  /** A Mrkdwn in a plain template literal would lose track of what is escaped: md`…` it instead. */
  toString(): string {
    throw new TypeError('a Mrkdwn was put in a plain string: build it with md`…`');
  }
}

const trusted = (text: string) => new Mrkdwn(TRUSTED, text);

/** What md`` and the helpers take: a Mrkdwn as it is, anything else as literal text. */
export type Part = Mrkdwn | string | number;

const escapeText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const asMrkdwn = (part: Part): string =>
  part instanceof Mrkdwn ? part.text : escapeText(String(part));

/**
 * mrkdwn from a template: the literal parts may use formatting (`*bold*`, `_italic_`, backticks,
 * new lines); every `&`, `<` and `>` in them and every interpolated string or number is escaped;
 * an interpolated Mrkdwn goes in as it is. Slack's own `<…>` sequences come only from the helpers.
 */
export function md(strings: TemplateStringsArray, ...values: Part[]): Mrkdwn {
  let out = escapeText(strings[0] ?? '');
  values.forEach((value, i) => {
    out += asMrkdwn(value) + escapeText(strings[i + 1] ?? '');
  });
  return trusted(out);
}

/** Literal text as mrkdwn (escaped); a Mrkdwn as it is. */
export const toMrkdwn = (part: Part): Mrkdwn => (part instanceof Mrkdwn ? part : md`${part}`);

/** Parts joined by a separator (itself literal text). */
export function join(parts: readonly Part[], separator: Part): Mrkdwn {
  return trusted(parts.map(asMrkdwn).join(asMrkdwn(separator)));
}

/** Inline code, escaped, with backticks that would end it early replaced. */
export function code(text: string): Mrkdwn {
  return md`\`${text.replaceAll('`', "'")}\``;
}

/** A block quote: each line starts with Slack's quote marker, a real `>`. */
export function quote(text: Part): Mrkdwn {
  return trusted(
    asMrkdwn(text)
      .split('\n')
      .map((line) => `>${line}`)
      .join('\n'),
  );
}

export const user = (id: string): Mrkdwn => trusted(`<@${escapeText(id)}>`);
export const channel = (id: string): Mrkdwn => trusted(`<#${escapeText(id)}>`);
/** A user group by id: rendered as its handle (and, outside an ephemeral message, notifies it). */
export const group = (id: string): Mrkdwn => trusted(`<!subteam^${escapeText(id)}>`);

/** A link the bot builds; its label is literal text or mrkdwn. */
export function link(url: string, label: Part): Mrkdwn {
  return trusted(`<${escapeText(url).replaceAll('|', '%7C')}|${asMrkdwn(label)}>`);
}

/** A date Slack shows in each reader's own time zone; the fallback is UTC. */
export function slackDate(ms: number, format = '{date_short_pretty} {time}'): Mrkdwn {
  const fallback = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return trusted(`<!date^${Math.floor(ms / 1000)}^${format}|${fallback}>`);
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A Mrkdwn cut to `max` characters (as sent, entities included) without cutting an entity or a
 * Slack `<…>` sequence in two.
 */
export function clip(text: Mrkdwn, max: number): Mrkdwn {
  if (text.text.length <= max) return text;
  let cut = text.text.slice(0, max - 1);
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  const open = cut.lastIndexOf('<');
  if (open >= 0 && !cut.slice(open).includes('>')) cut = cut.slice(0, open);
  return trusted(`${cut}…`);
}

/**
 * What a reader sees of mrkdwn, as plain text: for plain_text fields, a modal's inline errors and
 * anything stored to be shown again (which is escaped once more when it is).
 */
export function plainText(text: Mrkdwn): string {
  return decodeEntities(
    text.text
      .replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1')
      .replace(/<[@#!][^|>]*\|([^>]*)>/g, '$1')
      .replace(/<[^|>]*\|([^>]*)>/g, '$1')
      .replace(/<#([^>]*)>/g, '#$1')
      .replace(/<@([^>]*)>/g, '@$1')
      .replace(/<!subteam\^([^>]*)>/g, '@$1')
      .replace(/<([^>]*)>/g, '$1'),
  );
}

/** How long a text on its own (a notification, a file comment, a line of a list) may grow. */
export const MAX_SENTENCE = 3000;

/**
 * A plain_text object: never escaped (Slack shows it as given), at most `max` characters.
 * plain_text is not mrkdwn (the text object reference gives markup to `mrkdwn` only,
 * https://docs.slack.dev/reference/block-kit/composition-objects/text-object): it never carries an
 * entity, so this takes a string and never a Mrkdwn.
 */
export function plain(text: string, max = 3000): PlainTextElement {
  return { type: 'plain_text', text: truncate(text || ' ', max), emoji: true };
}

/** A mrkdwn text object, within `max` characters. */
export function mrkdwn(text: Mrkdwn, max = 3000): MrkdwnElement {
  return { type: 'mrkdwn', text: clip(text.text ? text : trusted(' '), max).text };
}
