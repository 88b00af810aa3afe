import assert from 'node:assert/strict';
import { engramMetrics } from '@engram/telemetry';
import { Registry } from 'prom-client';
import { countingLimiter, enforceRateLimit, MemoryRateLimiter } from '../src/index.ts';

function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('access metrics', () => {
  it('countingLimiter counts each refusal by the exhausted budget', async () => {
    const metrics = engramMetrics(new Registry());
    const limiter = countingLimiter(
      new MemoryRateLimiter({ projectPerWindow: 3, agentPerWindow: 2, windowMs: 60_000 }),
      metrics,
    );
    const admit = (agent: string) => enforceRateLimit(limiter, { projectId: 'p', agent });
    await admit('a');
    await admit('a');
    await assert.rejects(admit('a'));
    await admit('b');
    await assert.rejects(admit('c'));
    const text = await metrics.scrape();
    assert.equal(sample(text, 'engram_rate_limited_requests_total{scope="agent"}'), 1);
    assert.equal(sample(text, 'engram_rate_limited_requests_total{scope="project"}'), 1);
    await limiter.close();
  });
});
