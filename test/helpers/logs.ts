// Captures every line a pino logger writes, to assert on content (and on what is absent).
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export interface CapturedLogs {
  logger: Logger;
  lines: string[];
  text(): string;
}

export function captureLogs(level = 'trace'): CapturedLogs {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  // pino's sync write path expects a `write` method only; a Writable provides it.
  const logger = createLogger({ level, destination });
  return { logger, lines, text: () => lines.join('\n') };
}
