// The one error policy, in words: an expected failure (a refusal, the CDN's error) is the user's to
// read; anything else is logged once, at error level, with a short reference the user sees and
// can quote ("Something went wrong (ref 7f3a2c)").
import { randomBytes } from 'node:crypto';
import { errorText, warningMessage } from '../blocks/errors.js';
import type { Message } from '../blocks/message.js';
import { type Mrkdwn, plainText } from '../blocks/text.js';
import { CdnError } from '../cdn/errors.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { SecretError } from '../store/crypto.js';
import { asSlackProblem } from './web-api-errors.js';

/**
 * Logs `error` as its kind deserves and returns the sentence for the user, as mrkdwn (plainText()
 * makes it a form field's plain text). Slack's own passing
 * failures (a spent trigger, a timeout, a 5xx, a 429) are said as such, wherever they come from.
 */
export function explain(logger: Logger, failure: unknown, where: string): Mrkdwn {
  const error = asSlackProblem(failure);
  if (error instanceof AppError) {
    logger.debug({ code: error.code, where }, 'refused');
    return errorText(error);
  }
  if (error instanceof CdnError) {
    logger.info({ err: error, where }, 'the CDN API failed a request');
    return errorText(error);
  }
  if (error instanceof SecretError) {
    logger.warn({ err: error, where }, 'a stored secret cannot be read with the current keys');
    return errorText(error);
  }
  const ref = randomBytes(3).toString('hex');
  logger.error({ err: error, ref, where }, 'unexpected error');
  return errorText(error, ref);
}

/**
 * Why a background post failed, for the DM that pauses what it belongs to: stored as plain text,
 * and escaped when it is shown.
 */
export function failureReason(error: unknown): string {
  return plainText(errorText(asSlackProblem(error)));
}

/** `explain` as a warning message. */
export function explainMessage(logger: Logger, error: unknown, where: string): Message {
  return warningMessage(explain(logger, error, where));
}
