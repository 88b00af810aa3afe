import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`POST /memories/{id}/deprecate (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    it('lets the author deprecate, hides the memory from queries, and keeps it readable by id', async () => {
      const author = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'writer' });
      const old = await author.post<{ id: string }>('/memories/add', {
        content: 'Use the v1 deploy script.',
        scope: 'global',
      });
      const replacement = await author.post<{ id: string }>('/memories/add', {
        content: 'Use the v2 deploy script.',
        scope: 'global',
      });
      const res = await author.post<{
        is_deprecated: boolean;
        superseded_by: string;
        deprecation_reason: string;
      }>(`/memories/${old.body.id}/deprecate`, {
        reason: 'v1 was retired',
        superseded_by: replacement.body.id,
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.is_deprecated, true);
      assert.equal(res.body.superseded_by, replacement.body.id);
      assert.equal(res.body.deprecation_reason, 'v1 was retired');
      const q = await author.post<{ memories: { id: string }[] }>('/memories/query', {
        query: 'deploy script',
        top_k: 10,
      });
      assert.deepEqual(
        q.body.memories.map((m) => m.id),
        [replacement.body.id],
      );
      const again = await author.post(`/memories/${old.body.id}/deprecate`, { reason: 'twice' });
      assert.equal(again.status, 404, 'an already deprecated memory cannot be deprecated again');
      const events: { event_type: string }[] = await t.engram.db
        .knex('audit_events')
        .where({ memory_id: old.body.id, event_type: 'MEMORY_DEPRECATED' });
      assert.equal(events.length, 1);
    });

    it('refuses other agents (403 on what they can read, 404 on what they cannot) and bad superseded_by', async () => {
      const author = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'owner-2' });
      const other = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'intruder' });
      const privileged = await t.admin.createKey({ trust_level: 'privileged' });
      const shared = await author.post<{ id: string }>('/memories/add', {
        content: 'Global advice.',
        scope: 'global',
      });
      const secret = await author.post<{ id: string }>('/memories/add', { content: 'Private note.' });
      assert.equal(
        (await other.post(`/memories/${shared.body.id}/deprecate`, { reason: 'mine now' })).status,
        403,
      );
      assert.equal(
        (await other.post(`/memories/${secret.body.id}/deprecate`, { reason: 'mine now' })).status,
        404,
      );
      assert.equal(
        (
          await author.post(`/memories/${shared.body.id}/deprecate`, {
            reason: 'x',
            superseded_by: shared.body.id,
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await author.post(`/memories/${shared.body.id}/deprecate`, {
            reason: 'x',
            superseded_by: 'not-a-uuid',
          })
        ).status,
        400,
      );
      const ok = await privileged.post(`/memories/${secret.body.id}/deprecate`, { reason: 'cleanup' });
      assert.equal(ok.status, 200, ok.text);
    });
  });
}
