import { UnavailableError } from '@engram/errors';

/**
 * SQLSTATEs after which PostgreSQL has rolled the whole transaction back and running it again may
 * succeed: the other party of a deadlock or of a serialization conflict has gone on.
 */
const RETRYABLE = { '40P01': 'deadlock', '40001': 'serialization' } as const;

export type WriteConflict = (typeof RETRYABLE)[keyof typeof RETRYABLE];

/** Runs of a write transaction in all (the first one included). */
export const WRITE_ATTEMPTS = 5;
const BASE_DELAY_MS = 10;

export interface WriteRetryOptions {
  readonly attempts?: number;
  /** Called before each new run, with what aborted the previous one (the retry metric). */
  readonly onRetry?: (conflict: WriteConflict) => void;
}

/** The conflict an error (or an error along its cause chain) reports, if it is a retryable one. */
export function writeConflictOf(err: unknown): WriteConflict | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    seen.add(cur);
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code in RETRYABLE) return RETRYABLE[code as keyof typeof RETRYABLE];
    cur = cur.cause;
  }
  return undefined;
}

/**
 * Runs a whole write transaction (`run` must open and commit it, so each run starts clean) and runs
 * it again when PostgreSQL aborted it for a deadlock or a serialization failure, after a short jittered
 * pause (about 10, 20, 40, 80 ms) so the two parties do not collide again in step. A client never sees
 * those aborts: after `attempts` runs the write fails as UNAVAILABLE (503, retry later), not INTERNAL.
 */
export async function retryWriteConflicts<T>(
  run: () => Promise<T>,
  opts: WriteRetryOptions = {},
): Promise<T> {
  const attempts = opts.attempts ?? WRITE_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const conflict = writeConflictOf(err);
      if (conflict === undefined) throw err;
      if (attempt >= attempts) {
        throw new UnavailableError(
          `the database aborted this write ${attempts} times under concurrent writes (${conflict}); retry it`,
          err,
        );
      }
      opts.onRetry?.(conflict);
      const delay = BASE_DELAY_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
