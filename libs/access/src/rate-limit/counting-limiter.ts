import { METRICS, type EngramMetrics } from '@engram/telemetry';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * The limiter, with every refusal counted in engram_rate_limited_requests_total by the budget that
 * was exhausted (project or agent: never the project or agent itself, which would be unbounded).
 */
export function countingLimiter(limiter: RateLimiter, metrics: EngramMetrics): RateLimiter {
  const refused = metrics.counter(METRICS.rateLimited);
  return {
    async check(subject) {
      const verdict = await limiter.check(subject);
      if (!verdict.allowed) refused.inc({ scope: verdict.scope });
      return verdict;
    },
    close: () => limiter.close(),
  };
}
