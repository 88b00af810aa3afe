import assert from 'node:assert/strict';
import type { ApiClient } from '@engram/testing';
import { recordFigures } from './figures.ts';
import {
  collectErrors,
  collectLines,
  printFailureLogs,
  sleep,
  startFaultSuite,
  uniqueContent,
  type FaultSuite,
} from './support.ts';

const AGENT_LIMIT = 30;
const EACH = 20;
const FALLBACK = /Redis unavailable: rate limits are counted per process/;
const BACK = /Redis is back: rate limits are shared again/;

/**
 * Redis stopped and started again under the distributed suite. An agent's budget is shared by every
 * process through Redis: its writes (ingest-security) and its queries (retrieval-ranking) count
 * against one limit. Without Redis each process counts alone (per-process limits, never none), and
 * once Redis is back the budget is shared again. Each switch is logged once per process, however many
 * requests pass meanwhile.
 */
describe('reliability: Redis stopped and restarted under the rate limiter', function () {
  this.timeout(240_000);
  let suite: FaultSuite;
  let errors = new Map<string, string[]>();
  const switches = new Map<string, string[]>();

  before(async () => {
    suite = await startFaultSuite({
      redis: true,
      env: { RATE_LIMIT_AGENT_PER_MINUTE: String(AGENT_LIMIT), LOG_LEVEL: 'info' },
    });
    errors = collectErrors(suite.engram);
    for (const name of ['ingest-security', 'retrieval-ranking'])
      switches.set(name, collectLines(suite.engram.processes.get(name)!, /Redis (unavailable|is back)/));
  });
  after(() => suite?.stop());
  afterEach(function () {
    if (this.currentTest?.state === 'failed') printFailureLogs(suite, errors);
  });

  /** EACH writes and EACH queries by one agent, all within one rate-limit window; the count of 429s. */
  async function refusals(agent: string): Promise<number> {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await sleep(60_500 - intoMinute);
    const client: ApiClient = await suite.engram.admin.createKey({
      trust_level: 'internal',
      bound_agent_id: agent,
    });
    const statuses: number[] = [];
    for (let i = 0; i < EACH; i++) {
      statuses.push((await client.post('/memories/add', { content: uniqueContent(0, i) })).status);
      statuses.push((await client.post('/memories/query', { query: 'staging certificates' })).status);
    }
    assert.deepEqual(
      statuses.filter((s) => s !== 200 && s !== 429),
      [],
      'only answers or 429s',
    );
    return statuses.filter((s) => s === 429).length;
  }

  const count = (re: RegExp) =>
    Object.fromEntries([...switches].map(([name, lines]) => [name, lines.filter((l) => re.test(l)).length]));

  it('shares limits through Redis, falls back to per-process limits without it, shares again once it is back', async () => {
    const shared = await refusals('before');
    assert.equal(shared, 2 * EACH - AGENT_LIMIT, 'one budget across processes while Redis is up');

    await suite.redis!.pause();
    const during = await refusals('during');
    assert.equal(during, 0, 'per-process budgets while Redis is down (each process counted 20 of 30)');
    const duringAgain = await refusals('during-again');
    assert.equal(duringAgain, 0);

    await suite.redis!.resume();
    // ioredis reconnects within its back-off (at most 2 s)
    await sleep(3_000);
    const after = await refusals('after');
    assert.equal(after, 2 * EACH - AGENT_LIMIT, 'one budget again once Redis is back');

    await sleep(500);
    const each = (n: number) => ({ 'ingest-security': n, 'retrieval-ranking': n });
    assert.deepEqual(count(FALLBACK), each(1), 'the fall-back logged once by each process');
    assert.deepEqual(count(BACK), each(1), 'the return logged once by each process');
    recordFigures('redis-restart', {
      agent_limit_per_minute: AGENT_LIMIT,
      requests_per_phase: 2 * EACH,
      refused_with_redis: shared,
      refused_without_redis: during + duringAgain,
      refused_after_redis_back: after,
      fallback_log_lines: count(FALLBACK),
      return_log_lines: count(BACK),
    });
  });
});
