import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  createTestDatabase,
  startDistributed,
  TestNatsServer,
  type DistributedEngram,
  type TestDatabase,
} from '@engram/testing';
import { Metadata } from '@grpc/grpc-js';
import { createClient, unary } from '@engram/grpc-kit';
import { IngestServiceClient, type AddMemoryRequest } from '@engram/proto/engram/ingest/v1/ingest';
import type { WriteResult } from '@engram/proto/engram/memory/v1/memory';
import { AuditConsumer } from './audit-consumer.ts';

interface WriteBody {
  id: string;
  deduplicated: boolean;
}

describe('end to end: six processes behind the gateway, on PostgreSQL + NATS JetStream', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let nats: TestNatsServer;
  let engram: DistributedEngram;
  let consumer: AuditConsumer;
  const stream = `ENGRAM_AUDIT_E2E_${randomBytes(4).toString('hex').toUpperCase()}`;

  before(async () => {
    db = await createTestDatabase('engram_e2e');
    nats = await TestNatsServer.start();
    engram = await startDistributed({ databaseUrl: db.url, natsUrl: nats.url, natsStream: stream });
    consumer = await AuditConsumer.connect(nats.url);
  });

  after(async () => {
    await consumer?.close();
    await engram?.stop();
    await nats?.stop();
    await db?.drop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.log(engram.logs());
  });

  it('serves GET /readyz and /healthz once every service is up', async () => {
    assert.equal((await fetch(`${engram.baseUrl}/readyz`)).status, 200);
    assert.equal((await fetch(`${engram.baseUrl}/healthz`)).status, 200);
    const metrics = await (await fetch(`${engram.baseUrl}/metrics`)).text();
    assert.match(metrics, /http_requests_total/);
  });

  it('adds through ingest-security, stores in memory-store, finds through retrieval-ranking', async () => {
    const add = await engram.admin.post<WriteBody>('/memories/add', {
      content: 'Kubernetes pods in CrashLoopBackOff usually need their liveness probe relaxed.',
      agent_id: 'sre',
      scope: 'global',
    });
    assert.equal(add.status, 200, add.text);
    const got = await engram.admin.get<{ content: string }>(`/memories/${add.body.id}`);
    assert.equal(got.status, 200);
    const q = await engram.admin.post<{ memories: { id: string }[] }>('/memories/query', {
      query: 'pod CrashLoopBackOff liveness',
    });
    assert.equal(q.body.memories[0]?.id, add.body.id);
  });

  it('publishes the audit event to a real JetStream consumer', async () => {
    const add = await engram.admin.post<WriteBody>('/memories/add', {
      content: 'An event should follow this write.',
      agent_id: 'sre',
    });
    const events = await consumer.waitFor(stream, (e) => e.payload.memory_id === add.body.id);
    const ev = events.find((e) => e.payload.memory_id === add.body.id)!;
    assert.equal(ev.subject, 'engram.audit.default.MEMORY_CREATED');
    assert.equal(ev.payload.event_type, 'MEMORY_CREATED');
    assert.equal(ev.payload.project_id, 'default');
    assert.ok(!JSON.stringify(ev.payload).includes('An event should follow'), 'no memory content in events');
  });

  it('keeps writing while NATS is down and delivers the event once NATS returns', async () => {
    await nats.pause();
    const add = await engram.admin.post<WriteBody>('/memories/add', {
      content: 'Written while NATS was down.',
      agent_id: 'sre',
    });
    assert.equal(add.status, 200, add.text);
    await nats.resume();
    const events = await consumer.waitFor(stream, (e) => e.payload.memory_id === add.body.id, 30_000);
    assert.equal(
      events.filter((e) => e.payload.memory_id === add.body.id).length,
      1,
      'delivered exactly once',
    );
  });

  it('keeps projects apart and answers a foreign id with 404', async () => {
    await engram.admin.post('/admin/projects', { project_id: 'e2e-other' });
    const other = await engram.admin.createKey({ trust_level: 'system', project_id: 'e2e-other' });
    const mine = await engram.admin.post<WriteBody>('/memories/add', {
      content: 'Only project default knows this.',
      agent_id: 'a',
      scope: 'global',
    });
    assert.equal((await other.get(`/memories/${mine.body.id}`)).status, 404);
  });

  it('records channel rest for the gateway’s calls and grpc for a direct caller claiming rest', async () => {
    const viaGateway = await engram.admin.post<WriteBody>('/memories/add', {
      content: 'Written through the gateway of the distributed suite.',
      agent_id: 'channel',
    });
    assert.equal(viaGateway.status, 200, viaGateway.text);
    const client = createClient(IngestServiceClient, engram.addresses['ingest-security']!);
    const md = new Metadata();
    md.set('authorization', `Bearer ${engram.adminKey}`);
    md.set('x-engram-channel', 'rest');
    const direct = await unary<AddMemoryRequest, WriteResult>(
      client.addMemory.bind(client),
      {
        content: 'Written straight to ingest-security, claiming to be REST.',
        agent_id: 'channel',
        shared_with: [],
        metadata: undefined,
        steps: [],
        trigger_conditions: [],
      },
      md,
    );
    client.close();
    const channel = async (id: string) => {
      const res = await engram.admin.get<{ events: { details: { channel?: string } }[] }>(
        `/security/audit?event_type=MEMORY_CREATED&memory_id=${id}`,
      );
      assert.equal(res.status, 200, res.text);
      return res.body.events[0]?.details.channel;
    };
    assert.equal(await channel(viaGateway.body.id), 'rest');
    assert.equal(await channel(direct.id), 'grpc');
  });

  it('rejects a 60,000-character content with a machine-readable 400', async () => {
    const res = await engram.admin.post<{ error: { reason: string } }>('/memories/add', {
      content: 'y'.repeat(60_000),
      agent_id: 'a',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.reason, 'VALIDATION_FAILED');
  });

  it('never answers a hostile body with a 5xx or a stack trace', async () => {
    const routes: [string, string][] = [
      ['POST', '/memories/add'],
      ['POST', '/memories/add_batch'],
      ['POST', '/memories/query'],
      ['POST', '/memories/typed/episodic'],
      ['POST', '/memories/typed/procedural'],
      ['GET', '/memories/%00%ff'],
      ['POST', '/admin/keys'],
      ['POST', '/ace/run'],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.jsonValue(), fc.string(), fc.object()),
        async ([method, path], body) => {
          const res = await engram.admin.request(
            method,
            path,
            method === 'GET' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
          );
          assert.ok(
            res.status < 500 || res.status === 501,
            `${method} ${path} -> ${res.status} ${res.text.slice(0, 200)}`,
          );
          assert.ok(!/\bat .+\.(ts|js):\d+/.test(res.text), 'no stack trace');
        },
      ),
      { numRuns: 150 },
    );
  });

  // Last: it stops the gateway. The runtime drains it, flushes traces and exits 0 well within the
  // harness's 10 s before SIGKILL; a shutdown step that hung would show as a SIGKILL here.
  it('stops the gateway cleanly on SIGTERM: exit 0 within 5 s, no SIGKILL, its port closed', async () => {
    const gateway = engram.processes.get('gateway')!;
    const started = Date.now();
    await gateway.stop();
    assert.equal(gateway.child.signalCode, null, gateway.tail());
    assert.equal(gateway.child.exitCode, 0, gateway.tail());
    assert.ok(Date.now() - started < 5_000, `stopped after ${Date.now() - started} ms`);
    assert.equal((await fetch(`${engram.baseUrl}/healthz`).catch(() => undefined))?.status, undefined);
  });
});
