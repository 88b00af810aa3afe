import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  startDistributed,
  type DistributedEngram,
  type TestDatabase,
} from '@engram/testing';
import { OtlpReceiver } from './otlp-receiver.ts';
import { assertNothingSecret, assertTraceOfAdd, newTraceparent } from './trace-tree.ts';

describe('tracing: one add across the gateway, ingest-security and memory-store processes (OTLP/HTTP)', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let db: TestDatabase;
  let engram: DistributedEngram;

  before(async () => {
    receiver = await OtlpReceiver.start();
    db = await createTestDatabase('engram_trace');
    engram = await startDistributed({
      databaseUrl: db.url,
      // Each process exports to the receiver; a short batch delay keeps the test quick.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
  });
  after(async () => {
    await engram?.stop();
    await db?.drop();
    await receiver?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.log(engram.logs());
  });

  it('exports one linked trace, each span under its own service.name, with no content or key', async () => {
    const marker = randomBytes(8).toString('hex');
    const content = `Distributed tracing canary ${marker}: page the on-call before failing over.`;
    const ids = newTraceparent();
    const add = await engram.admin.request(
      'POST',
      '/memories/add',
      { content, agent_id: 'tracer' },
      { traceparent: ids.header },
    );
    assert.equal(add.status, 200, add.text);

    const inTrace = () => receiver.spans.filter((s) => s.traceId === ids.traceId);
    await receiver.waitFor(
      () =>
        inTrace().some((s) => s.service === 'gateway' && s.kind === 'server') &&
        inTrace().some(
          (s) => s.service === 'memory-store' && s.attributes['db.system.name'] === 'postgresql',
        ),
    );
    await new Promise((r) => setTimeout(r, 500)); // the client spans of the other batches
    const tree = assertTraceOfAdd(receiver.spans, ids);
    assert.equal(tree.gateway.service, 'gateway');
    assert.equal(tree.ingest.service, 'ingest-security');
    assert.equal(tree.store.service, 'memory-store');
    assert.ok(tree.db.some((s) => s.service === 'memory-store'));
    assertNothingSecret(receiver.bodies.join('\n'), {
      'memory content': content,
      'content marker': marker,
      'API key': engram.adminKey,
      'authorization header': 'Bearer ',
    });
  });
});
