// Captures every line a pino logger writes, to assert on content (and on what is absent).
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export interface CapturedLogs {
  logger: Logger;
  lines: string[];
  text(): string;
  /** Resolves with the first line (past or future) containing `fragment`. */
  waitFor(fragment: string): Promise<string>;
}

/**
 * Throws when any log line holds one of `secrets`, in any of the forms it could be written in
 * (as is, JSON-escaped, base64, hex). Names the secret by its label, never prints it.
 */
export function expectNoSecrets(
  logs: Pick<CapturedLogs, 'text'>,
  secrets: Record<string, string | Buffer>,
): void {
  const text = logs.text();
  const leaked = Object.entries(secrets).filter(([, secret]) => {
    const raw = typeof secret === 'string' ? secret : '';
    const bytes = typeof secret === 'string' ? Buffer.from(secret) : secret;
    const forms = [
      raw,
      JSON.stringify(raw).slice(1, -1),
      bytes.toString('base64'),
      bytes.toString('hex'),
    ];
    return forms.some((form) => form.length >= 8 && text.includes(form));
  });
  if (leaked.length > 0) {
    throw new Error(`secrets in the logs: ${leaked.map(([label]) => label).join(', ')}`);
  }
}

export function captureLogs(level = 'trace'): CapturedLogs {
  const lines: string[] = [];
  const written = new EventEmitter();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      written.emit('line');
      done();
    },
  });
  // pino's sync write path expects a `write` method only; a Writable provides it.
  const logger = createLogger({ level, destination });
  const waitFor = (fragment: string) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const line = lines.find((l) => l.includes(fragment));
        if (line === undefined) return;
        written.off('line', check);
        resolve(line);
      };
      written.on('line', check);
      check();
    });
  return { logger, lines, text: () => lines.join('\n'), waitFor };
}
