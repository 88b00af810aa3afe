import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { engramMetrics, watchOutbox, watchPools, type OutboxBacklog } from '../src/index.ts';

function value(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('sampled gauges', () => {
  it('samples the outbox once per scrape for both gauges', async () => {
    const m = engramMetrics(new Registry());
    let calls = 0;
    watchOutbox(m, () => {
      calls += 1;
      return Promise.resolve({ pending: 7, oldestAgeSeconds: 12.5 });
    });
    const text = await m.scrape();
    assert.equal(value(text, 'engram_outbox_pending_events'), 7);
    assert.equal(value(text, 'engram_outbox_oldest_event_age_seconds'), 12.5);
    assert.equal(calls, 1);
  });

  it('answers the scrape within the timeout when the database hangs, and leaves the gauges out', async () => {
    const m = engramMetrics(new Registry());
    let calls = 0;
    let release: (b: OutboxBacklog) => void = () => {};
    watchOutbox(
      m,
      () => {
        calls += 1;
        if (calls > 1) return Promise.resolve({ pending: 1, oldestAgeSeconds: 1 });
        return new Promise<OutboxBacklog>((resolve) => (release = resolve));
      },
      50,
    );
    const started = Date.now();
    const text = await m.scrape();
    assert.ok(Date.now() - started < 1000);
    assert.match(text, /# TYPE engram_outbox_pending_events gauge/);
    assert.equal(value(text, 'engram_outbox_pending_events'), undefined);
    // A second scrape while the first query still runs does not start another one.
    await m.scrape();
    assert.equal(calls, 1);
    // Once it ends, the next scrape queries afresh.
    release({ pending: 9, oldestAgeSeconds: 9 });
    await new Promise((r) => setImmediate(r));
    assert.equal(value(await m.scrape(), 'engram_outbox_pending_events'), 1);
    assert.equal(calls, 2);
  });

  it('leaves the outbox gauges out when the probe fails or is unwatched', async () => {
    const m = engramMetrics(new Registry());
    const stop = watchOutbox(m, () => Promise.reject(new Error('database down')));
    assert.equal(value(await m.scrape(), 'engram_outbox_pending_events'), undefined);
    stop();
    watchOutbox(m, () => Promise.resolve({ pending: 3, oldestAgeSeconds: 0 }))();
    assert.equal(value(await m.scrape(), 'engram_outbox_pending_events'), undefined);
  });

  it('reports every pool by state, current at each scrape', async () => {
    const m = engramMetrics(new Registry());
    let used = 2;
    const stop = watchPools(m, () => [
      { pool: 'primary', used, free: 1, pending: 0, max: 10 },
      { pool: 'read', used: 0, free: 3, pending: 4, max: 10 },
    ]);
    let text = await m.scrape();
    assert.equal(value(text, 'engram_db_pool_connections{pool="primary",state="used"}'), 2);
    assert.equal(value(text, 'engram_db_pool_connections{pool="read",state="free"}'), 3);
    assert.equal(value(text, 'engram_db_pool_pending_acquires{pool="read"}'), 4);
    assert.equal(value(text, 'engram_db_pool_max_connections{pool="primary"}'), 10);
    used = 5;
    text = await m.scrape();
    assert.equal(value(text, 'engram_db_pool_connections{pool="primary",state="used"}'), 5);
    stop();
    text = await m.scrape();
    assert.equal(value(text, 'engram_db_pool_connections{pool="primary",state="used"}'), undefined);
  });
});
