import type { EngramError } from './errors.ts';
import type { RetryPolicy } from './options.ts';

/** HTTP statuses worth another attempt: rate limited, and unavailable for now. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Whether an error answer is worth another attempt: 429 and 503, and the 409 a write meets while
 * the first request with its Idempotency-Key is still being served (reason
 * IDEMPOTENCY_KEY_IN_PROGRESS, which comes with a Retry-After). Any other 4xx or 5xx is final.
 */
export function retryableAnswer(err: EngramError): boolean {
  return (
    RETRYABLE_STATUSES.has(err.status) || (err.status === 409 && err.reason === 'IDEMPOTENCY_KEY_IN_PROGRESS')
  );
}

/**
 * Exponential backoff with full jitter (a uniformly random wait in [0, min(cap, base * 2^(n-1))]
 * before retry n): clients that failed together do not come back together.
 */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait before retry n: the backoff, but never sooner than the server's Retry-After.
 * Undefined when Retry-After asks for more than the policy's longest wait (the caller gives up).
 */
export function retryWaitMs(
  retry: number,
  policy: RetryPolicy,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const backoff = backoffDelayMs(retry, policy, random);
  if (retryAfterSeconds === undefined) return backoff;
  const asked = retryAfterSeconds * 1000;
  if (asked > policy.maxDelayMs) return undefined;
  return Math.max(backoff, asked);
}

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
