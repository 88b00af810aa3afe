/** When and how a call is tried again (429 and 503 answers, network failures). */
export interface RetryOptions {
  /** Attempts per call, the first included (default 4: three retries). 1 turns retries off. */
  readonly maxAttempts?: number;
  /** Backoff of the first retry: the wait is random in [0, base * 2^(retry - 1)] (default 200 ms). */
  readonly baseDelayMs?: number;
  /**
   * The longest single wait (default 10 s): backoff is capped at it, and a Retry-After that asks for
   * longer ends the retries (the error then carries retryAfterSeconds).
   */
  readonly maxDelayMs?: number;
}

/** The retry policy with every default filled in. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 10_000 };

/** The default time budget of one call, all attempts and waits included. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The fetch the client calls: the platform's, or one the caller supplies (a proxy agent, a test double). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface EngramClientOptions {
  /** The gateway's base URL, e.g. "https://engram.example.com" (a path prefix is kept). */
  readonly baseUrl: string;
  /** Sent as `authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /** Defaults to the global fetch. */
  readonly fetch?: FetchFunction;
  /**
   * Time budget of each call in milliseconds, covering every attempt and every wait between them
   * (default 30 s; 0 disables it). For exportMemories it covers the wait for the response to start,
   * not the reading of the stream.
   */
  readonly timeoutMs?: number;
  /** Retry policy of every call; false: one attempt only. */
  readonly retry?: RetryOptions | false;
  /** Sent as user-agent where the platform allows it (default "engram-client/<version>"). */
  readonly userAgent?: string;
  /** Extra headers sent with every request (a tracing header, a proxy's credentials). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of one call. */
export interface CallOptions {
  /** Overrides the client's timeoutMs for this call. */
  readonly timeoutMs?: number;
  /** Aborts the call, including any wait between retries; it fails with code CANCELLED. */
  readonly signal?: AbortSignal;
  /** Overrides the client's retry policy for this call. */
  readonly retry?: RetryOptions | false;
  /**
   * The Idempotency-Key of a write (default: a new random UUID per call, the same on every retry of
   * that call). Pass your own to make a call safe to repeat across process restarts.
   */
  readonly idempotencyKey?: string;
  /** Sent as x-request-id (the gateway echoes it and logs it); default: the gateway picks one. */
  readonly requestId?: string;
  /** Extra headers for this call. */
  readonly headers?: Readonly<Record<string, string>>;
}

export function resolveRetry(
  base: RetryOptions | false | undefined,
  override: RetryOptions | false | undefined,
): RetryPolicy {
  if (override === false || (override === undefined && base === false)) {
    return { ...DEFAULT_RETRY, maxAttempts: 1 };
  }
  const merged = { ...DEFAULT_RETRY, ...(base === false ? {} : base), ...override };
  return {
    maxAttempts: Math.max(1, Math.floor(merged.maxAttempts)),
    baseDelayMs: Math.max(0, merged.baseDelayMs),
    maxDelayMs: Math.max(0, merged.maxDelayMs),
  };
}
