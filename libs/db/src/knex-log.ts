/** Where knex's own messages go: the process's logger (pino behind @engram/logger). */
export interface KnexLogSink {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The most a message of knex's keeps: its first line, shortened. */
const MAX_CHARS = 200;
/** A message seen again within this is counted, not logged. */
const REPEAT_WINDOW_MS = 60_000;

/**
 * The first line of a knex message, without the stack knex appends ("Acquire connection error:
 * Error: connect ECONNREFUSED ...\n    at ..."), shortened; quoted values and numbers are masked so
 * that neither a parameter a driver quotes in its message nor a changing port or pid reaches the
 * log or makes a repeat look new.
 */
export function knexLogLine(message: unknown): string {
  const text = typeof message === 'string' ? message : message instanceof Error ? message.message : '';
  const first = (text.split('\n', 1)[0] ?? '').trim();
  const masked = first
    .replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\(([^()]*)\)=\(([^()]*)\)/g, '…')
    .replace(/\d+/g, 'N');
  return masked.length > MAX_CHARS ? masked.slice(0, MAX_CHARS) + '…' : masked;
}

/**
 * knex's `log` option: its warnings and errors (connection errors during a database outage, above
 * all) go through the process's logger as one line without stack or values, and a line seen again
 * within a minute is counted and reported with the next one after the minute, so an outage logs a
 * few lines rather than one per failed acquire. Without it knex prints each with its stack on stdout.
 */
export function knexLog(sink: KnexLogSink, now: () => number = Date.now) {
  const seen = new Map<string, { at: number; repeated: number }>();
  const emit = (level: 'warn' | 'error', message: unknown) => {
    const line = knexLogLine(message);
    const t = now();
    const last = seen.get(line);
    if (last && t - last.at < REPEAT_WINDOW_MS) {
      last.repeated++;
      return;
    }
    const repeated = last?.repeated ?? 0;
    seen.set(line, { at: t, repeated: 0 });
    // Distinct lines are few (knex has a handful of messages); the bound keeps it so anyway.
    if (seen.size > 100) seen.delete(seen.keys().next().value!);
    sink[level](repeated > 0 ? { repeated } : {}, line);
  };
  return {
    warn: (m: unknown) => emit('warn', m),
    error: (m: unknown) => emit('error', m),
    deprecate: (m: unknown) => emit('warn', m),
    // knex's debug output (with DEBUG=knex:*) prints statements and bindings: never logged.
    debug: (_message: unknown) => undefined,
  };
}
