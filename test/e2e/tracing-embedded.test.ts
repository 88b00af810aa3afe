import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type StopTracing } from '@engram/telemetry';
import { ENGINES, TestNatsServer } from '@engram/testing';
import { OtlpReceiver } from './otlp-receiver.ts';
import { assertNothingSecret, assertTraceOfAdd, newTraceparent, type SpanRecord } from './trace-tree.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const REDIS_URL = process.env.ENGRAM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;

function toRecord(s: ReadableSpan): SpanRecord {
  return {
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    name: s.name,
    kind: KINDS[s.kind],
    service: String(s.resource.attributes['service.name']),
    attributes: s.attributes,
    error: s.status.code === SpanStatusCode.ERROR,
  };
}

/** Everything a span exports besides its timing: what must never hold content or a key. */
function exportedText(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events,
      links: s.links,
      status: s.status,
      resource: s.resource.attributes,
      scope: s.instrumentationScope,
    })),
  );
}

async function eventually<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting for spans');
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const engine of ENGINES) {
  describe(`tracing: one add through the gateway is one trace (embedded, ${engine}, Redis, NATS)`, function () {
    this.timeout(60_000);
    const exporter = new InMemorySpanExporter();
    let stopTracing: StopTracing | undefined;
    let nats: TestNatsServer | undefined;
    let t: TestEngram | undefined;

    before(async () => {
      // The test process owns the provider; the platform's own startTracing then leaves it alone.
      stopTracing = await startTracing({ serviceName: 'engram-test', exporter });
      nats = await TestNatsServer.start();
      t = await startTestEngram(engine, { REDIS_URL, NATS_URL: nats.url });
    });
    after(async () => {
      await t?.stop();
      await nats?.stop();
      await stopTracing?.();
    });

    it('links gateway -> ingest-security -> memory-store -> database, with Redis and the NATS publish, and exports no content or key', async () => {
      const engram = t!;
      exporter.reset();
      const marker = randomBytes(8).toString('hex');
      const content = `Tracing canary ${marker}: the blue-green switch waits for the canary to pass.`;
      const ids = newTraceparent();
      const add = await engram.admin.request(
        'POST',
        '/memories/add',
        { content, agent_id: 'tracer', metadata: { marker } },
        { traceparent: ids.header },
      );
      assert.equal(add.status, 200, add.text);

      // The gateway span ends when the response closes; the relay publishes the audit event afterwards.
      const records = await eventually(() => {
        const r = exporter.getFinishedSpans().map(toRecord);
        const done =
          r.some((s) => s.traceId === ids.traceId && s.attributes['http.route'] !== undefined) &&
          r.some((s) => s.traceId === ids.traceId && s.kind === 'producer');
        return done ? r : undefined;
      });
      const tree = assertTraceOfAdd(records, ids);
      assert.ok(
        tree.all.every((s) => s.service === 'engram-test'),
        'embedded: one provider for the whole process',
      );

      // Each internal call (in-process by default, EMBEDDED_IN_PROCESS) is a CLIENT span, as over gRPC.
      for (const server of [tree.ingest, tree.store]) {
        const parent = tree.all.find((s) => s.spanId === server.parentSpanId);
        assert.equal(parent?.kind, 'client', `${server.name} is called by a CLIENT span`);
        assert.equal(parent?.name, server.name);
      }

      const redis = tree.all.filter((s) => s.attributes['db.system.name'] === 'redis');
      assert.ok(redis.length > 0, 'the rate limiter Redis call is in the trace');
      assert.ok(redis.every((s) => s.name === 'EVAL' && s.kind === 'client'));

      const publish = tree.all.find((s) => s.kind === 'producer');
      assert.ok(publish);
      assert.equal(publish.attributes['messaging.system'], 'nats');
      assert.match(String(publish.attributes['messaging.destination.name']), /^engram\.audit\.default\./);
      assert.equal(publish.parentSpanId, tree.store.spanId, 'published in the trace of the write');

      assertNothingSecret(exportedText(exporter.getFinishedSpans()), {
        'memory content': content,
        'content marker': marker,
        'API key': engram.adminKey,
        'authorization header': 'Bearer ',
      });
    });
  });
}

describe('tracing: exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (embedded, pglite)', function () {
  this.timeout(60_000);

  it('starts with the process, sends one linked trace per add as OTLP JSON, and flushes on shutdown', async () => {
    const receiver = await OtlpReceiver.start();
    let t: TestEngram | undefined;
    try {
      // As in production: the platform reads the setting and owns the provider.
      t = await startTestEngram('pglite', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      const marker = randomBytes(8).toString('hex');
      const content = `OTLP canary ${marker}: rotate the signing key before the audit.`;
      const ids = newTraceparent();
      const add = await t.admin.request(
        'POST',
        '/memories/add',
        { content, agent_id: 'tracer' },
        { traceparent: ids.header },
      );
      assert.equal(add.status, 200, add.text);
      const adminKey = t.adminKey;
      await t.stop(); // the platform's close() flushes the batch processor last
      t = undefined;

      const tree = assertTraceOfAdd(receiver.spans, ids);
      assert.ok(
        tree.all.every((s) => s.service === 'engram'),
        'service.name is the process name',
      );
      assertNothingSecret(receiver.bodies.join('\n'), {
        'memory content': content,
        'content marker': marker,
        'API key': adminKey,
        'authorization header': 'Bearer ',
      });
    } finally {
      await t?.stop();
      await receiver.close();
    }
  });
});
