import { Redis } from 'ioredis';
import type { Logger } from '@engram/logger';
import { ATTR, traceClientCall } from '@engram/telemetry';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimiter, RateLimits, RateLimitSubject, RateLimitVerdict } from './rate-limiter.ts';

/**
 * One atomic admission on Redis: fixed windows on the Redis server's clock (so every instance agrees
 * on the window), agent checked first so a refused agent spends nothing of its project's budget.
 * KEYS: project counter prefix, agent counter prefix. ARGV: window ms, project limit, agent limit.
 * Returns {allowed 0|1, scope 0 project|1 agent, limit, remaining, reset ms}.
 */
const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local plimit = tonumber(ARGV[2])
local alimit = tonumber(ARGV[3])
local w = math.floor(now / windowMs)
local reset = (w + 1) * windowMs - now
local pkey = KEYS[1] .. ':' .. w
local akey = KEYS[2] .. ':' .. w
local a = tonumber(redis.call('GET', akey) or '0')
if a >= alimit then return {0, 1, alimit, 0, reset} end
local p = tonumber(redis.call('GET', pkey) or '0')
if p >= plimit then return {0, 0, plimit, 0, reset} end
a = redis.call('INCR', akey)
redis.call('PEXPIRE', akey, reset + 1000)
p = redis.call('INCR', pkey)
redis.call('PEXPIRE', pkey, reset + 1000)
if alimit - a <= plimit - p then return {1, 1, alimit, alimit - a, reset} end
return {1, 0, plimit, plimit - p, reset}
`;

const REDIS_SPAN_ATTRIBUTES = { [ATTR.dbSystemName]: 'redis', [ATTR.dbOperationName]: 'EVAL' };
const FIRST_CONNECT_WAIT_MS = 2_000;

export interface RedisRateLimiterOptions {
  readonly url: string;
  readonly limits: RateLimits;
  readonly logger: Logger;
  /** Prefix of every counter key (tests use one per run). */
  readonly keyPrefix?: string;
  /** How long one admission may wait for Redis before falling back (default 250 ms). */
  readonly commandTimeoutMs?: number;
}

/**
 * Rate limits shared by every instance through Redis. When Redis is unreachable or slow the limiter
 * falls back to counting in this process (it fails open to per-process limits, never to none); it
 * returns to Redis by itself when Redis is back. Each switch is logged once: a warning when the
 * limits become per-process, an info line when they are shared again (not one line per request or
 * per reconnection attempt).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly prefix: string;
  /** True while admissions are counted in this process because Redis failed. */
  private local = false;
  /** Until the first connection, admissions wait for it (briefly) instead of falling back at once. */
  private firstConnection: Promise<void> | undefined;

  constructor(private readonly opts: RedisRateLimiterOptions) {
    this.prefix = opts.keyPrefix ?? 'engram:rl:';
    this.fallback = new MemoryRateLimiter(opts.limits);
    this.redis = new Redis(opts.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
      lazyConnect: false,
    });
    // Connection errors are reported through the admissions that fail (toLocal); the listener only
    // keeps ioredis from treating them as unhandled.
    this.redis.on('error', () => undefined);
    this.firstConnection = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FIRST_CONNECT_WAIT_MS);
      timer.unref();
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    }).then(() => {
      this.firstConnection = undefined;
    });
  }

  async check(subject: RateLimitSubject): Promise<RateLimitVerdict> {
    const { limits } = this.opts;
    if (this.firstConnection !== undefined) await this.firstConnection;
    try {
      // The span names the command only: the keys hold project and agent ids, the script is ours.
      const raw = await traceClientCall('EVAL', REDIS_SPAN_ATTRIBUTES, () =>
        this.redis.eval(
          ADMIT_SCRIPT,
          2,
          `${this.prefix}p:${keyPart(subject.projectId)}`,
          `${this.prefix}a:${keyPart(subject.projectId)}:${keyPart(subject.agent)}`,
          limits.windowMs,
          limits.projectPerWindow,
          limits.agentPerWindow,
        ),
      );
      const verdict = parseVerdict(raw);
      if (this.local) this.toShared();
      return verdict;
    } catch (err) {
      if (!this.local) this.toLocal(err);
      return this.fallback.checkSync(subject);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }

  private toLocal(err: unknown): void {
    this.local = true;
    this.opts.logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'Redis unavailable: rate limits are counted per process until it is back',
    );
  }

  private toShared(): void {
    this.local = false;
    this.opts.logger.info('Redis is back: rate limits are shared again');
  }
}

function parseVerdict(raw: unknown): RateLimitVerdict {
  if (!Array.isArray(raw) || raw.length !== 5 || !raw.every((v) => typeof v === 'number')) {
    throw new Error('unexpected reply of the rate-limit script');
  }
  const [allowed, scope, limit, remaining, resetMs] = raw;
  return {
    allowed: allowed === 1,
    scope: scope === 1 ? 'agent' : 'project',
    limit: limit ?? 0,
    remaining: Math.max(0, remaining ?? 0),
    resetMs: resetMs ?? 0,
  };
}

/**
 * One id inside a counter key, percent-encoded so that ':' in a project or agent id cannot make two
 * (project, agent) pairs share a key: ("a:b", "c") and ("a", "b:c") stay apart.
 */
function keyPart(id: string): string {
  return encodeURIComponent(id);
}
