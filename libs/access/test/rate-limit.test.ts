import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { RateLimitedError } from '@engram/errors';
import { createLogger } from '@engram/logger';
import {
  enforceRateLimit,
  MemoryRateLimiter,
  RedisRateLimiter,
  type RateLimiter,
  type RateLimits,
} from '../src/index.ts';

const REDIS_URL = process.env.ENGRAM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = createLogger({ service: 'test', level: 'silent' });

async function refusal(limiter: RateLimiter, projectId: string, agent: string): Promise<RateLimitedError> {
  try {
    await enforceRateLimit(limiter, { projectId, agent });
  } catch (err) {
    if (err instanceof RateLimitedError) return err;
    throw err;
  }
  assert.fail(`expected ${projectId}/${agent} to be refused`);
}

/** Runs the same behaviour against a limiter built by `make`. */
function behaves(make: (limits: RateLimits) => RateLimiter) {
  const limits: RateLimits = { projectPerWindow: 5, agentPerWindow: 3, windowMs: 3_600_000 };
  let limiter: RateLimiter;
  let project: string;
  beforeEach(() => {
    limiter = make(limits);
    project = `p-${randomUUID()}`;
  });
  afterEach(() => limiter.close());

  it('admits an agent up to its budget, then refuses with the agent budget and a retry delay', async () => {
    for (let i = 0; i < 3; i++) await enforceRateLimit(limiter, { projectId: project, agent: 'a' });
    const err = await refusal(limiter, project, 'a');
    assert.equal(err.reason, 'RATE_LIMITED');
    assert.equal(err.metadata.scope, 'agent');
    assert.equal(err.metadata.limit, '3');
    assert.equal(err.metadata.remaining, '0');
    assert.ok(err.retryAfterMs > 0 && err.retryAfterMs <= limits.windowMs);
  });

  it('a refused agent spends nothing of the project budget; other agents share what is left', async () => {
    for (let i = 0; i < 3; i++) await enforceRateLimit(limiter, { projectId: project, agent: 'noisy' });
    for (let i = 0; i < 10; i++) await refusal(limiter, project, 'noisy');
    await enforceRateLimit(limiter, { projectId: project, agent: 'b' });
    await enforceRateLimit(limiter, { projectId: project, agent: 'c' });
    const err = await refusal(limiter, project, 'd');
    assert.equal(err.metadata.scope, 'project');
    assert.equal(err.metadata.limit, '5');
  });

  it('projects do not share budgets, and the same agent name in another project counts apart', async () => {
    for (let i = 0; i < 3; i++) await enforceRateLimit(limiter, { projectId: project, agent: 'a' });
    await refusal(limiter, project, 'a');
    await enforceRateLimit(limiter, { projectId: `${project}-other`, agent: 'a' });
  });

  it('reports the tighter remaining budget on admission', async () => {
    const v = await limiter.check({ projectId: project, agent: 'a' });
    assert.deepEqual([v.allowed, v.scope, v.limit, v.remaining], [true, 'agent', 3, 2]);
  });
}

describe('rate limiting', () => {
  describe('in-process limiter', () => {
    behaves((limits) => new MemoryRateLimiter(limits));

    it('refills when the window turns', async () => {
      let t = 1_000_000;
      const limiter = new MemoryRateLimiter(
        { projectPerWindow: 5, agentPerWindow: 1, windowMs: 60_000 },
        () => t,
      );
      await enforceRateLimit(limiter, { projectId: 'p', agent: 'a' });
      const err = await refusal(limiter, 'p', 'a');
      assert.equal(err.retryAfterMs, 20_000);
      t += 20_000;
      await enforceRateLimit(limiter, { projectId: 'p', agent: 'a' });
    });

    it('rotating 200,000 agent ids neither resets nor escapes a spent project budget, and creates no counters', () => {
      const limiter = new MemoryRateLimiter(
        { projectPerWindow: 10, agentPerWindow: 5, windowMs: 60_000 },
        () => 1_000_000,
      );
      let admitted = 0;
      for (let i = 0; i < 200_000; i++) {
        const v = limiter.checkSync({ projectId: 'p', agent: `rotating-${i}` });
        if (v.allowed) admitted += 1;
        else assert.equal(v.scope, 'project');
      }
      assert.equal(admitted, 10, 'the project admitted more than its budget');
      // One project counter and the ten agents that were admitted; the refusals left nothing behind.
      assert.equal(limiter.liveCounters(), 11);
    });

    it('a refused agent creates no counter and spends nothing; the refusal by the project neither', () => {
      const limiter = new MemoryRateLimiter(
        { projectPerWindow: 3, agentPerWindow: 1, windowMs: 60_000 },
        () => 1_000_000,
      );
      assert.ok(limiter.checkSync({ projectId: 'p', agent: 'a' }).allowed);
      for (let i = 0; i < 5; i++)
        assert.equal(limiter.checkSync({ projectId: 'p', agent: 'a' }).scope, 'agent');
      assert.equal(limiter.liveCounters(), 2);
      assert.ok(limiter.checkSync({ projectId: 'p', agent: 'b' }).allowed);
      assert.ok(limiter.checkSync({ projectId: 'p', agent: 'c' }).allowed);
      const refused = limiter.checkSync({ projectId: 'p', agent: 'd' });
      assert.deepEqual([refused.allowed, refused.scope], [false, 'project']);
      assert.equal(limiter.liveCounters(), 4, 'p, a, b and c; nothing for the refused d');
    });

    it('bounds the agent counters of a window without ever dropping the project counter', () => {
      let t = 1_000_000;
      const limiter = new MemoryRateLimiter(
        { projectPerWindow: 1_000, agentPerWindow: 1, windowMs: 60_000 },
        () => t,
        100,
      );
      for (let i = 0; i < 1_000; i++) {
        assert.ok(limiter.checkSync({ projectId: 'p', agent: `a${i}` }).allowed, `a${i}`);
      }
      assert.equal(limiter.liveCounters(), 101);
      // An agent counted before the bound keeps its budget; the project's budget is spent for all.
      assert.equal(limiter.checkSync({ projectId: 'p', agent: 'a0' }).scope, 'agent');
      const late = limiter.checkSync({ projectId: 'p', agent: 'a999' });
      assert.deepEqual([late.allowed, late.scope], [false, 'project']);
      // The next window starts empty: the old counters are gone, the budgets refilled.
      t += 60_000;
      assert.ok(limiter.checkSync({ projectId: 'p', agent: 'a0' }).allowed);
      assert.equal(limiter.liveCounters(), 2);
    });
  });

  describe('Redis limiter (real Redis)', () => {
    const prefix = `engram-test:${randomUUID()}:`;
    behaves((limits) => new RedisRateLimiter({ url: REDIS_URL, limits, logger: silent, keyPrefix: prefix }));

    it('two limiters (two instances) on one Redis share one budget', async () => {
      const limits = { projectPerWindow: 100, agentPerWindow: 4, windowMs: 3_600_000 };
      const one = new RedisRateLimiter({ url: REDIS_URL, limits, logger: silent, keyPrefix: prefix });
      const two = new RedisRateLimiter({ url: REDIS_URL, limits, logger: silent, keyPrefix: prefix });
      try {
        const project = `shared-${randomUUID()}`;
        for (let i = 0; i < 2; i++) {
          await enforceRateLimit(one, { projectId: project, agent: 'a' });
          await enforceRateLimit(two, { projectId: project, agent: 'a' });
        }
        await refusal(one, project, 'a');
        await refusal(two, project, 'a');
      } finally {
        await one.close();
        await two.close();
      }
    });

    it('keeps (project, agent) pairs apart when ids contain ":" (no shared counter across projects)', async () => {
      const limits = { projectPerWindow: 100, agentPerWindow: 1, windowMs: 3_600_000 };
      const limiter = new RedisRateLimiter({ url: REDIS_URL, limits, logger: silent, keyPrefix: prefix });
      try {
        const run = randomUUID();
        // Unencoded, both pairs would count on the key a:<run>:x:y:z.
        assert.equal((await limiter.check({ projectId: `${run}:x`, agent: 'y:z' })).allowed, true);
        assert.equal((await limiter.check({ projectId: run, agent: 'x:y:z' })).allowed, true);
        assert.equal((await limiter.check({ projectId: run, agent: 'x:y:z' })).allowed, false);
      } finally {
        await limiter.close();
      }
    });

    it('creates no counter for a refused request: rotating agent ids cannot grow Redis or escape the project', async () => {
      const limits = { projectPerWindow: 5, agentPerWindow: 2, windowMs: 3_600_000 };
      const keyPrefix = `engram-test:${randomUUID()}:`;
      const limiter = new RedisRateLimiter({ url: REDIS_URL, limits, logger: silent, keyPrefix });
      const redis = new Redis(REDIS_URL);
      try {
        let admitted = 0;
        for (let i = 0; i < 2_000; i++) {
          const v = await limiter.check({ projectId: 'p', agent: `rotating-${i}` });
          if (v.allowed) admitted += 1;
        }
        assert.equal(admitted, 5);
        const keys = await redis.keys(`${keyPrefix}*`);
        assert.equal(keys.length, 6, keys.join(' ')); // the project and the five agents admitted
      } finally {
        await limiter.close();
        const keys = await redis.keys(`${keyPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    it('with Redis unreachable it keeps limiting per process and warns, instead of failing calls', async () => {
      const srv = createServer();
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const { port } = srv.address() as AddressInfo;
      await new Promise<void>((r) => srv.close(() => r()));
      const lines: string[] = [];
      const logger = createLogger({
        service: 'test',
        level: 'warn',
        destination: { write: (l: string) => void lines.push(l) },
      });
      const limits = { projectPerWindow: 10, agentPerWindow: 2, windowMs: 3_600_000 };
      const down = new RedisRateLimiter({ url: `redis://127.0.0.1:${port}`, limits, logger });
      try {
        await enforceRateLimit(down, { projectId: 'p', agent: 'a' });
        await enforceRateLimit(down, { projectId: 'p', agent: 'a' });
        await refusal(down, 'p', 'a');
        assert.ok(
          lines.some((l) => l.includes('rate limits are counted per process')),
          lines.join('\n'),
        );
      } finally {
        await down.close();
      }
    });
  });
});
