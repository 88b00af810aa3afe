import { createLogger, type Logger } from '@engram/logger';

/** A real logger whose JSON lines are kept in memory, so tests can check what is (not) logged. */
export function captureLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'events-test',
    level,
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines };
}
