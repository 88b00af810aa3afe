import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import {
  catalogueLabels,
  engramMetrics,
  GRPC_CODE_NAMES,
  LABEL_VALUES,
  METRICS,
  observeRpc,
  renderMetricsDoc,
  type MetricDef,
} from '../src/index.ts';

const DEFS: MetricDef[] = Object.values(METRICS);

/** The sample lines of one metric in the exposition text, e.g. `name{a="b"} 1`. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('metrics catalogue', () => {
  it('names every metric once, in Prometheus form, with help and a known type', () => {
    const names = DEFS.map((d) => d.name);
    assert.equal(new Set(names).size, names.length);
    for (const d of DEFS) {
      assert.match(d.name, /^[a-z_][a-z0-9_]*$/, d.name);
      if (d.type === 'counter') assert.ok(d.name.endsWith('_total'), `${d.name}: a counter ends in _total`);
      else assert.ok(!d.name.endsWith('_total'), `${d.name}: only counters end in _total`);
      // A histogram names its unit: seconds for a duration, writes for how many writes went together.
      if (d.type === 'histogram')
        assert.ok(
          /_(seconds|writes)$/.test(d.name) && (d.buckets?.length ?? 0) > 0,
          `${d.name}: unit and buckets`,
        );
      assert.ok(d.help.length > 10 && d.exportedBy.length > 0, d.name);
      for (const l of d.labels) assert.match(l, /^[a-z_][a-z0-9_]*$/);
    }
  });

  it('documents the value set of every label, and no label names an unbounded thing', () => {
    for (const l of catalogueLabels()) assert.ok(LABEL_VALUES[l], `label ${l} has no documented values`);
    const unbounded = /(^|_)(id|ids|path|url|project|agent|key|content|memory|namespace|session)$/;
    for (const l of catalogueLabels()) assert.doesNotMatch(l, unbounded, l);
  });

  it('creates each metric once per registry and returns the same object when asked again', () => {
    const registry = new Registry();
    const a = engramMetrics(registry);
    assert.equal(engramMetrics(registry), a);
    assert.equal(a.counter(METRICS.eventsPublished), a.counter(METRICS.eventsPublished));
    assert.equal(a.histogram(METRICS.httpRequestDuration), a.histogram(METRICS.httpRequestDuration));
    // A second EngramMetrics over the same registry (no WeakMap) still reuses the registered objects.
    const again = new (a.constructor as new (r: Registry) => typeof a)(registry);
    assert.equal(again.counter(METRICS.eventsPublished), a.counter(METRICS.eventsPublished));
    assert.ok(registry.getSingleMetric('process_cpu_user_seconds_total'), 'default metrics registered');
    const other = engramMetrics(new Registry());
    assert.notEqual(other.counter(METRICS.eventsPublished), a.counter(METRICS.eventsPublished));
  });

  it('refuses to reuse a name registered as another type', () => {
    const m = engramMetrics(new Registry());
    m.counter(METRICS.eventsPublished);
    const clash = { ...METRICS.outboxPendingEvents, name: METRICS.eventsPublished.name };
    assert.throws(() => m.gauge(clash), /another type/);
  });

  it('only exports what was asked for (besides the default process metrics)', async () => {
    const m = engramMetrics(new Registry());
    m.counter(METRICS.rateLimited);
    const text = await m.scrape();
    assert.match(text, /# TYPE engram_rate_limited_requests_total counter/);
    assert.doesNotMatch(text, /engram_outbox_pending_events/);
    assert.match(text, /process_cpu_user_seconds_total/);
  });
});

describe('per-RPC metrics', () => {
  it('counts start and outcome by service, method, type and Go-spelled code, and observes latency', async () => {
    const m = engramMetrics(new Registry());
    const path = '/engram.ingest.v1.IngestService/AddMemory';
    observeRpc(m, path, 'unary').end(0);
    const failed = observeRpc(m, path, 'unary');
    failed.end(3);
    failed.end(0); // ignored: one outcome per call
    observeRpc(m, '/engram.memory.v1.MemoryStoreService/StreamMemories', 'server_stream').end(8);
    const text = await m.scrape();
    const labels = 'grpc_type="unary",grpc_service="engram.ingest.v1.IngestService",grpc_method="AddMemory"';
    assert.ok(samples(text, 'grpc_server_started_total').includes(`grpc_server_started_total{${labels}} 2`));
    const handled = samples(text, 'grpc_server_handled_total');
    assert.ok(handled.includes(`grpc_server_handled_total{${labels},grpc_code="OK"} 1`), handled.join('\n'));
    assert.ok(handled.includes(`grpc_server_handled_total{${labels},grpc_code="InvalidArgument"} 1`));
    assert.ok(handled.some((l) => l.includes('"StreamMemories",grpc_code="ResourceExhausted"} 1')));
    assert.ok(text.includes(`grpc_server_handling_seconds_count{${labels}} 2`));
  });

  it('spells the 17 codes as go-grpc-prometheus does', () => {
    assert.equal(GRPC_CODE_NAMES.length, 17);
    assert.equal(GRPC_CODE_NAMES[1], 'Canceled');
    assert.equal(GRPC_CODE_NAMES[14], 'Unavailable');
    assert.equal(GRPC_CODE_NAMES[16], 'Unauthenticated');
  });
});

describe('docs/metrics.md', () => {
  it('is what scripts/gen-metrics-docs.ts generates from the catalogue (make docs)', () => {
    const file = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
    assert.equal(file, renderMetricsDoc(), 'docs/metrics.md is stale: run make docs');
  });

  it('lists every metric of the catalogue', () => {
    const doc = renderMetricsDoc();
    for (const d of DEFS) assert.ok(doc.includes(`| \`${d.name}\` | ${d.type} |`), d.name);
  });
});
