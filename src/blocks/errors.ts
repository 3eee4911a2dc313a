// What a user reads when something fails: short, specific, and saying what to do next.
import type { ModalView } from '@slack/types';
import { CdnError } from '../cdn/errors.js';
import { AppError } from '../errors.js';
import { SecretError } from '../store/crypto.js';
import type { Message } from './message.js';
import { problemText } from './problems.js';
import { code, escapeMrkdwn, mrkdwn } from './text.js';

/**
 * A user-facing sentence for any error. An unexpected one says only that it was logged, with the
 * short reference (`ref`) the log line carries, so the user can quote it.
 */
export function errorText(error: unknown, ref?: string): string {
  if (error instanceof AppError) return problemText(error.problem);
  if (error instanceof SecretError) {
    return "This workspace's stored CDN key can't be read with the bot's current encryption keys. A workspace admin can set it again with `/cdn login`.";
  }
  if (!(error instanceof CdnError)) {
    return ref
      ? `Something went wrong on our side (ref ${code(ref)}). It has been logged; please try again, and quote the ref if it keeps happening.`
      : 'Something went wrong on our side. It has been logged; please try again.';
  }
  const said = escapeMrkdwn(error.message);
  const cdnRef = error.requestId ? ` (CDN request id ${code(error.requestId)})` : '';
  switch (error.code) {
    case 'unauthorized':
      return `The CDN rejected this workspace's API key: ${said}. A workspace admin can set a new one with \`/cdn login\`.${cdnRef}`;
    case 'forbidden':
      return `This workspace's CDN API key is not allowed to do that: ${said}.${cdnRef}`;
    case 'not_found':
      return `The CDN could not find that: ${said}.${cdnRef}`;
    case 'conflict':
      return `The CDN refused: ${said}.${cdnRef}`;
    case 'invalid_request':
      return `The CDN refused the request: ${said}.${cdnRef}`;
    case 'rate_limited': {
      const wait =
        error.retryAfterMs === undefined
          ? ''
          : ` Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
      return `The CDN API is rate limiting requests right now.${wait}${cdnRef}`;
    }
    case 'unavailable':
      return `The CDN API is having trouble (${said}). Try again in a minute.${cdnRef}`;
    case 'timeout':
      return `The CDN API did not answer in time. Check the result before trying again.${cdnRef}`;
    case 'network':
      return `Couldn't reach the CDN API: ${said}.${cdnRef}`;
    case 'unexpected_response':
      return `The CDN answered in a way I don't understand (${said}), so I assumed nothing.${cdnRef}`;
    case 'blocked_address':
      return `I won't call that CDN API address: ${said}. A workspace admin can set another base URL with \`/cdn login\`.`;
  }
}

export function errorMessage(error: unknown, ref?: string): Message {
  return warningMessage(errorText(error, ref));
}

/** A sentence already written for the user (errorText's), as a warning message. */
export function warningMessage(text: string): Message {
  return { text, blocks: [{ type: 'section', text: mrkdwn(`:warning: ${text}`) }] };
}

/** A plain notice (not an error): one section. */
export function noticeMessage(text: string, emoji = ':information_source:'): Message {
  return { text, blocks: [{ type: 'section', text: mrkdwn(`${emoji} ${text}`) }] };
}

/** A small modal for surfaces with no conversation to answer in (the App Home). */
export function noticeModal(title: string, text: string): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: title.slice(0, 24) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: mrkdwn(text) }],
  };
}
