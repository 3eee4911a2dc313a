// The one logger: pino with redaction of every field that could carry a credential.
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths removed from every log line. Code never logs secrets on purpose; this is the net
 * underneath for objects (requests, errors, options) that are logged whole.
 */
export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'userToken',
  '*.userToken',
  'clientSecret',
  '*.clientSecret',
  'signingSecret',
  '*.signingSecret',
] as const;

export interface LoggerOptions {
  level?: string;
  /** Where lines go; stdout when absent. Tests pass a stream to inspect every line. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      base: null,
    },
    options.destination,
  );
}
