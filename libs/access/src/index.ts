export { KEY_CACHE_TTL_MS, KeyAuthenticator } from './key-authenticator.ts';
export type { KeyAuthenticatorOptions } from './key-authenticator.ts';
export type { KeyLookup } from './key-lookup.ts';
export { API_KEY_COLUMNS, keyRecordOf } from './key-record.ts';
export type { ApiKeyRow, KeyRecord } from './key-record.ts';
export { KnexKeyLookup } from './knex-key-lookup.ts';
export { countingLimiter } from './rate-limit/counting-limiter.ts';
export { MemoryRateLimiter } from './rate-limit/memory-rate-limiter.ts';
export { enforceRateLimit, limitsPerMinute } from './rate-limit/rate-limiter.ts';
export type {
  RateLimiter,
  RateLimits,
  RateLimitSubject,
  RateLimitVerdict,
} from './rate-limit/rate-limiter.ts';
export { RedisRateLimiter } from './rate-limit/redis-rate-limiter.ts';
export type { RedisRateLimiterOptions } from './rate-limit/redis-rate-limiter.ts';
export { rateLimitSubject } from './rate-limit-subject.ts';
