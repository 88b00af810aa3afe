import type { Logger } from '@engram/logger';

export interface LogLine {
  readonly level: string;
  readonly obj: object | string;
  readonly msg: string | undefined;
  readonly bindings: Record<string, string | number>;
}

/** A Logger that keeps every line (children share the list), for asserting what was logged. */
export function recordingLogger(
  lines: LogLine[] = [],
  bindings: Record<string, string | number> = {},
): Logger & { lines: LogLine[] } {
  const at =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      lines.push({ level, obj, msg, bindings });
    };
  return {
    lines,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}
