import { RateLimitedError } from '@engram/errors';

/** Who a request is counted against: its project, and its acting agent within the project. */
export interface RateLimitSubject {
  readonly projectId: string;
  /** The bound agent, else the named agent, else `key:<key_id>`. */
  readonly agent: string;
}

/** Requests per window; the agent limit should be below the project limit. */
export interface RateLimits {
  readonly projectPerWindow: number;
  readonly agentPerWindow: number;
  /** Fixed window length (60 000 ms: the settings are per minute). */
  readonly windowMs: number;
}

/** The outcome of one admission: the tighter of the two budgets. */
export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** Which budget decided: the exhausted one when refused, else the one with less left. */
  readonly scope: 'project' | 'agent';
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until the current window ends and the budget refills. */
  readonly resetMs: number;
}

/**
 * Counts requests per project and per acting agent. An agent over its budget is refused without
 * spending the project's budget, so one noisy agent cannot exhaust its project's quota.
 */
export interface RateLimiter {
  check(subject: RateLimitSubject): Promise<RateLimitVerdict>;
  close(): Promise<void>;
}

/** Refuses a request whose verdict says so: RESOURCE_EXHAUSTED with RetryInfo and RateLimit-* metadata. */
export async function enforceRateLimit(limiter: RateLimiter, subject: RateLimitSubject): Promise<void> {
  const v = await limiter.check(subject);
  if (v.allowed) return;
  const retryAfterMs = Math.max(1, v.resetMs);
  throw new RateLimitedError(
    v.scope === 'agent'
      ? 'rate limit of this agent exceeded, retry later'
      : 'rate limit of this project exceeded, retry later',
    retryAfterMs,
    {
      scope: v.scope,
      limit: String(v.limit),
      remaining: String(v.remaining),
      reset_seconds: String(Math.ceil(retryAfterMs / 1000)),
    },
  );
}

export function limitsPerMinute(projectPerMinute: number, agentPerMinute: number): RateLimits {
  return { projectPerWindow: projectPerMinute, agentPerWindow: agentPerMinute, windowMs: 60_000 };
}
