import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import { add, exportAll, knexOf, type ErrorBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`POST /memories/export (${engine})`, function () {
    this.timeout(90_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    it('streams exactly what the caller may read, with filters and deprecated rows on request', async () => {
      const alice = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'alice' });
      const bob = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'bob' });
      const own = await add(alice, { content: 'Alice private note.' });
      const mineGlobal = await add(alice, { content: 'Alice global note.', scope: 'global' });
      const sharedWithBob = await add(alice, {
        content: 'Alice shares this with bob.',
        scope: 'agent-shared',
        shared_with: ['bob'],
      });
      const bobsPrivate = await add(bob, { content: 'Bob private note.' });
      const bobsOtherNs = await add(bob, { content: 'Bob note in ns2.', namespace: 'ns2', scope: 'global' });
      const bobsStrategy = await add(bob, {
        content: 'Bob strategy.',
        memory_type: 'strategy',
        scope: 'global',
      });
      const old = await add(alice, { content: 'Alice outdated note.' });
      assert.equal((await alice.post(`/memories/${old}/deprecate`, { reason: 'outdated' })).status, 200);

      const ids = async (client = alice, body: Record<string, unknown> = {}) =>
        (await exportAll(client, body)).map((r) => r.id).sort();
      assert.deepEqual(await ids(), [own, mineGlobal, sharedWithBob, bobsOtherNs, bobsStrategy].sort());
      assert.deepEqual(
        await ids(alice, { include_deprecated: true }),
        [own, mineGlobal, sharedWithBob, bobsOtherNs, bobsStrategy, old].sort(),
      );
      assert.deepEqual(
        await ids(bob),
        [mineGlobal, sharedWithBob, bobsPrivate, bobsOtherNs, bobsStrategy].sort(),
      );
      assert.deepEqual(await ids(bob, { namespace: 'ns2' }), [bobsOtherNs]);
      assert.deepEqual(await ids(bob, { memory_types: ['strategy'] }), [bobsStrategy]);
      const rows = await exportAll(alice);
      for (const r of rows) assert.deepEqual([r.integrity_status, r.integrity_format], ['valid', 'v2']);
      assert.equal(rows.find((r) => r.id === own)?.content, 'Alice private note.');
    });

    it('pages through more rows than one batch, in id order, each row once', async () => {
      const knex = knexOf(t);
      await knex.raw(
        `insert into memories (id, project_id, namespace, agent_id, content, content_key, memory_type, scope, trust_level)
         select gen_random_uuid(), 'default', 'bulk', 'bulk-agent', 'bulk row ' || g, 'k' || g, 'standard', 'agent-private', 'internal'
         from generate_series(1, 1234) g`,
      );
      const rows = await exportAll(t.admin, { namespace: 'bulk' });
      assert.equal(rows.length, 1234);
      assert.equal(new Set(rows.map((r) => r.id)).size, 1234);
      const sorted = [...rows.map((r) => r.id)].sort();
      assert.deepEqual(
        rows.map((r) => r.id),
        sorted,
      );
      assert.ok(rows.every((r) => r.integrity_status === 'unsigned' && r.integrity_format === 'none'));
    });

    it('answers 400 for bad filters and 403 for a bound key naming another agent', async () => {
      const bad = await t.admin.request<ErrorBody>('POST', '/memories/export', { memory_types: ['nope'] });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.reason, 'VALIDATION_FAILED');
      const badNs = await t.admin.request<ErrorBody>('POST', '/memories/export', { namespace: 'a b' });
      assert.equal(badNs.status, 400);
      const bound = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'carol' });
      const mismatch = await bound.request<ErrorBody>('POST', '/memories/export', { agent_id: 'dave' });
      assert.equal(mismatch.status, 403);
      assert.equal(mismatch.body.error.reason, 'AGENT_MISMATCH');
    });
  });
}
