// What a user reads when something fails: short, specific, and saying what to do next.
import type { ModalView } from '@slack/types';
import { CdnError } from '../cdn/errors.js';
import { AppError } from '../errors.js';
import { SecretError } from '../store/crypto.js';
import { type Message, message } from './message.js';
import { problemText } from './problems.js';
import { code, type Mrkdwn, md, mrkdwn, type Part, plainText, toMrkdwn, truncate } from './text.js';

/** A purge form sent from a channel purges are not allowed in, in a form field's plain text. */
const PURGE_CHANNELS_INLINE =
  'Purges may only be run from the channels a workspace admin chose (/cdn config lists them). Nothing was purged.';

/**
 * A user-facing sentence for any error. An unexpected one says only that it was logged, with the
 * short reference (`ref`) the log line carries, so the user can quote it.
 */
export function errorText(error: unknown, ref?: string): Mrkdwn {
  if (error instanceof AppError) return problemText(error.problem);
  if (error instanceof SecretError) {
    return md`This workspace's stored CDN key can't be read with the bot's current encryption keys. A workspace admin can set it again with \`/cdn login\`.`;
  }
  if (!(error instanceof CdnError)) {
    return ref
      ? md`Something went wrong on our side (ref ${code(ref)}). It has been logged; please try again, and quote the ref if it keeps happening.`
      : md`Something went wrong on our side. It has been logged; please try again.`;
  }
  const said = error.message;
  const cdnRef = error.requestId ? md` (CDN request id ${code(error.requestId)})` : '';
  switch (error.code) {
    case 'unauthorized':
      return md`The CDN rejected this workspace's API key: ${said}. A workspace admin can set a new one with \`/cdn login\`.${cdnRef}`;
    case 'forbidden':
      return md`This workspace's CDN API key is not allowed to do that: ${said}.${cdnRef}`;
    case 'not_found':
      return md`The CDN could not find that: ${said}.${cdnRef}`;
    case 'conflict':
      return md`The CDN refused: ${said}.${cdnRef}`;
    case 'invalid_request':
      return md`The CDN refused the request: ${said}.${cdnRef}`;
    case 'rate_limited': {
      const wait =
        error.retryAfterMs === undefined
          ? ''
          : md` Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
      return md`The CDN API is rate limiting requests right now.${wait}${cdnRef}`;
    }
    case 'unavailable':
      return md`The CDN API is having trouble (${said}). Try again in a minute.${cdnRef}`;
    // The client's words name the host and the kind: "Cannot reach the CDN at api.cdn.example: …".
    case 'timeout':
      return md`${said}. Check the result before trying again.${cdnRef}`;
    case 'network':
      return md`${said}. Try again in a minute.${cdnRef}`;
    case 'unexpected_response':
      return md`The CDN answered in a way I don't understand (${said}), so I assumed nothing.${cdnRef}`;
    case 'blocked_address':
      return md`I won't call that CDN API address: ${said}. A workspace admin can set another base URL with \`/cdn login\`.`;
  }
}

/**
 * An error as a form field's inline error (`response_action: errors`): a plain string per block
 * (bolt-js ViewErrorsResponseAction, docs.slack.dev/tools/bolt-js/reference/interfaces/ViewErrorsResponseAction),
 * so plain text, never entities; a channel mention would show as its id, so that one is said in words.
 */
export function inlineErrorText(error: unknown): string {
  return error instanceof AppError && error.code === 'purge_channel_restricted'
    ? PURGE_CHANNELS_INLINE
    : plainText(errorText(error));
}

export function errorMessage(error: unknown, ref?: string): Message {
  return warningMessage(errorText(error, ref));
}

/** A sentence for the user (errorText's, or literal text), as a warning message. */
export function warningMessage(text: Part): Message {
  return noticeMessage(text, ':warning:');
}

/** A notice (not an error): one section. Mrkdwn goes as it is, a string as literal text. */
export function noticeMessage(text: Part, emoji = ':information_source:'): Message {
  const said = toMrkdwn(text);
  return message(said, [
    { type: 'section', text: mrkdwn(emoji ? md`${toMrkdwn(emoji)} ${said}` : said) },
  ]);
}

/** A small modal for surfaces with no conversation to answer in (the App Home). */
export function noticeModal(title: string, text: Part): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: truncate(title, 24) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: mrkdwn(toMrkdwn(text)) }],
  };
}
