import assert from 'node:assert/strict';
import { type ApiClient } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/**
 * Two replicas of the whole suite (each its own gRPC servers, gateway, pools and platform, built by
 * the same serveServices path as the real processes) on one PostgreSQL database: an
 * Idempotency-Key taken by one replica is honoured by the other, also when both race.
 */
describe('idempotent writes across two replicas on one PostgreSQL database', function () {
  this.timeout(90_000);
  let a: TestEngram;
  let b: TestEngram;
  let viaA: ApiClient;
  let viaB: ApiClient;

  before(async () => {
    a = await startTestEngram('postgres');
    // The second replica joins the first one's database (the engine label only picks who drops it).
    b = await startTestEngram('pglite', {
      DATABASE_URL: a.database!.url,
      SERVICE_INTEGRITY_KEY: a.integrityKey,
    });
    viaA = await a.admin.createKey({ trust_level: 'internal', bound_agent_id: 'agent' });
    viaB = b.admin.withKey(viaA.key);
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  const add = (client: ApiClient, content: string, key: string) =>
    client.request('POST', '/memories/add', { content, agent_id: 'agent' }, { 'idempotency-key': key });
  const memoriesWith = async (content: string) =>
    Number((await a.engram.db.knex('memories').where({ content }).count<{ n: string }[]>('* as n'))[0]?.n);

  it('one call to each replica with the same key: the same answer and one memory', async () => {
    const content = 'Written once through two replicas.';
    const first = await add(viaA, content, 'replica-1');
    const second = await add(viaB, content, 'replica-1');
    assert.equal(first.status, 200, first.text);
    assert.equal(second.text, first.text);
    assert.equal(first.body.deduplicated, false);
    assert.equal(await memoriesWith(content), 1);
    // Without a key the second replica runs the write and says it found the memory.
    const unkeyed = await viaB.post('/memories/add', { content, agent_id: 'agent' });
    assert.equal(unkeyed.body.deduplicated, true);
  });

  it('20 concurrent requests with one key over both replicas: one memory, never a 5xx', async () => {
    const content = 'Raced through two replicas.';
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => add(i % 2 === 0 ? viaA : viaB, content, 'replica-race')),
    );
    const statuses = answers.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 409),
      answers.map((r) => `${r.status} ${r.text}`).join('\n'),
    );
    const ok = answers.filter((r) => r.status === 200);
    assert.equal(new Set(ok.map((r) => r.text)).size, 1);
    assert.equal(await memoriesWith(content), 1);
    const settled = await add(viaB, content, 'replica-race');
    assert.equal(settled.status, 200);
    if (ok.length > 0) assert.equal(settled.text, ok[0]!.text);
    assert.equal(settled.body.deduplicated, false, 'the replayed answer is the write that created it');
  });
});
