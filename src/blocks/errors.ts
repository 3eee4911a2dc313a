// What a user reads when something fails: short, specific, and saying what to do next.
import type { ModalView } from '@slack/types';
import { CdnError } from '../cdn/errors.js';
import { AppError } from '../errors.js';
import { SecretError } from '../store/crypto.js';
import type { Message } from './message.js';
import { code, escapeMrkdwn, mrkdwn } from './text.js';

/** A user-facing sentence for any error. `doing` completes "… while <doing>". */
export function errorText(error: unknown, doing?: string): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof SecretError) {
    return "This workspace's stored CDN key can't be read with the bot's current encryption keys. A workspace admin can set it again with `/cdn login`.";
  }
  if (!(error instanceof CdnError)) {
    return `Something went wrong on our side${doing ? ` while ${doing}` : ''}. It has been logged; please try again.`;
  }
  const said = escapeMrkdwn(error.message);
  const ref = error.requestId ? ` (CDN request id ${code(error.requestId)})` : '';
  switch (error.code) {
    case 'unauthorized':
      return `The CDN rejected this workspace's API key: ${said}. A workspace admin can set a new one with \`/cdn login\`.${ref}`;
    case 'forbidden':
      return `This workspace's CDN API key is not allowed to do that: ${said}.${ref}`;
    case 'not_found':
      return `The CDN could not find that: ${said}.${ref}`;
    case 'conflict':
      return `The CDN refused: ${said}.${ref}`;
    case 'invalid_request':
      return `The CDN refused the request: ${said}.${ref}`;
    case 'rate_limited': {
      const wait =
        error.retryAfterMs === undefined
          ? ''
          : ` Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
      return `The CDN API is rate limiting requests right now.${wait}${ref}`;
    }
    case 'unavailable':
      return `The CDN API is having trouble (${said}). Try again in a minute.${ref}`;
    case 'timeout':
      return `The CDN API did not answer in time. Check the result before trying again.${ref}`;
    case 'network':
      return `Couldn't reach the CDN API: ${said}.${ref}`;
    case 'unexpected_response':
      return `The CDN answered in a way I don't understand (${said}), so I assumed nothing.${ref}`;
    case 'blocked_address':
      return `I won't call that CDN API address: ${said}. A workspace admin can set another base URL with \`/cdn login\`.`;
  }
}

export function errorMessage(error: unknown, doing?: string): Message {
  const text = errorText(error, doing);
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
