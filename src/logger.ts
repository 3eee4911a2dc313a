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

/**
 * Secrets that turn up inside message strings, where `redact` (which works on fields) can't
 * reach: the Web API client logs whole request bodies at debug level, OAuth exchanges included.
 */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, 'xox…[redacted]'],
  [/\bxapp-[A-Za-z0-9-]+/g, 'xapp-[redacted]'],
  [/(bearer\s+)[^\s"',]+/gi, '$1[redacted]'],
  [
    /((?:client_secret|signing_secret|state_secret|access_token|refresh_token|token|api_key|apiKey)\\?"?\s*[:=]\s*\\?"?)[^"&\s,}\\]+/g,
    '$1[redacted]',
  ],
];

/** A log message with every recognizable credential replaced. */
export function scrubSecrets(text: string): string {
  let scrubbed = text;
  for (const [pattern, replacement] of SECRET_PATTERNS)
    scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}

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
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
}
