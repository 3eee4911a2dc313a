// Text for Block Kit: escaping, Slack limits, dates. Every user or API string goes through escapeMrkdwn().
import type { MrkdwnElement, PlainTextElement } from '@slack/types';

/**
 * Escapes the three characters Slack's mrkdwn gives meaning to, so typed or API-supplied text cannot
 * become a mention (<!channel>, <@U…>) or a disguised link (<http://evil|innocent>).
 */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Inline code, escaped, with backticks that would end it early removed. */
export function code(text: string): string {
  return `\`${escapeMrkdwn(text).replaceAll('`', "'")}\``;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function plain(text: string, max = 3000): PlainTextElement {
  return { type: 'plain_text', text: truncate(text || ' ', max), emoji: true };
}

export function mrkdwn(text: string, max = 3000): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(text || ' ', max) };
}

/** A date Slack shows in each reader's own time zone; the fallback is UTC. */
export function slackDate(ms: number, format = '{date_short_pretty} {time}'): string {
  const fallback = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${Math.floor(ms / 1000)}^${format}|${fallback}>`;
}

export const user = (id: string): string => `<@${id}>`;
