import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import { currentRequestContext } from './request-context.ts';

/** The logging interface the code base depends on; pino stays behind it. */
export interface Logger {
  trace(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  fatal(obj: object | string, msg?: string): void;
  child(bindings: { component: string } & Record<string, string | number>): Logger;
}

/**
 * Field names that are never logged, whatever object they sit in: memory content, keys, secrets.
 * A backstop: code must not pass such objects to the logger in the first place.
 */
export const REDACTED_PATHS = [
  'content',
  '*.content',
  'query',
  '*.query',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'metadata',
  '*.metadata',
  'redacted_content',
  '*.redacted_content',
];

export interface LoggerOptions {
  readonly service: string;
  readonly level: string;
  readonly destination?: DestinationStream;
}

class PinoBacked implements Logger {
  constructor(private readonly p: PinoLogger) {}
  private log(
    level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal',
    obj: object | string,
    msg?: string,
  ) {
    // A disabled level costs nothing: no request-context lookup, no object spread (every request logs at info).
    if (!this.p.isLevelEnabled(level)) return;
    const ctx = currentRequestContext();
    const base = ctx
      ? { request_id: ctx.requestId, ...(ctx.projectId ? { project_id: ctx.projectId } : {}) }
      : {};
    if (typeof obj === 'string') this.p[level](base, obj);
    else this.p[level]({ ...base, ...obj }, msg);
  }
  trace(obj: object | string, msg?: string) {
    this.log('trace', obj, msg);
  }
  debug(obj: object | string, msg?: string) {
    this.log('debug', obj, msg);
  }
  info(obj: object | string, msg?: string) {
    this.log('info', obj, msg);
  }
  warn(obj: object | string, msg?: string) {
    this.log('warn', obj, msg);
  }
  error(obj: object | string, msg?: string) {
    this.log('error', obj, msg);
  }
  fatal(obj: object | string, msg?: string) {
    this.log('fatal', obj, msg);
  }
  child(bindings: { component: string } & Record<string, string | number>): Logger {
    return new PinoBacked(this.p.child(bindings));
  }
}

/** A logger for one process; pass it down explicitly (no global). */
export function createLogger(opts: LoggerOptions): Logger {
  const p = pino(
    {
      level: opts.level,
      base: { service: opts.service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
    },
    opts.destination,
  );
  return new PinoBacked(p);
}
