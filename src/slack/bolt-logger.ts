// Bolt and the Web API client log through this: the project's one pino logger, redaction included.
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../logger.js';

const LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

export function boltLogger(logger: Logger, name = 'bolt'): SlackLogger {
  let child = logger.child({ component: name });
  const line = (parts: unknown[]) =>
    parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  return {
    debug: (...parts) => child.debug(line(parts)),
    info: (...parts) => child.info(line(parts)),
    warn: (...parts) => child.warn(line(parts)),
    error: (...parts) => child.error(line(parts)),
    // Bolt asks to set its level from its own option; the pino level set at start-up stays in charge.
    setLevel: () => undefined,
    getLevel: () => LEVELS[child.level] ?? LogLevel.INFO,
    setName: (next) => {
      child = logger.child({ component: next });
    },
  };
}
