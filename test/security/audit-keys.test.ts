import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { GITHUB_TOKEN } from './helpers.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface AuditEventBody {
  event_type: string;
  agent_id: string;
  memory_id?: string;
  api_key_id: string;
  details: Record<string, unknown>;
}

/** The audit log names the API key behind every act (docs/decisions.md). */
for (const engine of ENGINES) {
  describe(`the audit log names the key behind every act (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    const events = async (client: ApiClient): Promise<AuditEventBody[]> => {
      const out: AuditEventBody[] = [];
      let cursor = '';
      do {
        const page = await client.get<{ events: AuditEventBody[]; next_cursor: string }>(
          `/security/audit?limit=100${cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        assert.equal(page.status, 200, page.text);
        out.push(...page.body.events);
        cursor = page.body.next_cursor;
      } while (cursor !== '');
      return out;
    };
    const ok = async <T>(res: Promise<{ status: number; body: T; text: string }>): Promise<T> => {
      const r = await res;
      assert.equal(r.status, 200, r.text);
      return r.body;
    };

    it('records project and key administration, and every write, vote, run and refusal, with the key that did it', async () => {
      await ok(t.admin.post('/admin/projects', { project_id: 'audited', name: 'Audited' }));
      const created = await ok(
        t.admin.post<{ key_id: string; api_key: string }>('/admin/keys', {
          project_id: 'audited',
          trust_level: 'system',
          name: 'project admin',
        }),
      );
      const admin = t.admin.withKey(created.api_key);
      const keyOf = async (body: Record<string, unknown>) => {
        const k = await ok(
          admin.post<{ key_id: string; api_key: string }>('/admin/keys', { name: 'k', ...body }),
        );
        return { id: k.key_id, client: admin.withKey(k.api_key) };
      };
      const alice = await keyOf({ trust_level: 'internal', bound_agent_id: 'alice' });
      const ops = await keyOf({ trust_level: 'internal', agent_ids: ['ops', 'alice'] });
      const security = await keyOf({ trust_level: 'privileged' });
      const doomed = await keyOf({ trust_level: 'internal', any_agent: true });
      await ok(admin.request('DELETE', `/admin/keys/${doomed.id}`));

      const note = await ok(
        alice.client.post<{ id: string }>('/memories/add', {
          content: 'Audit: rotate the signing key yearly.',
          scope: 'global',
        }),
      );
      await ok(
        alice.client.post('/memories/add', {
          content: 'Audit: rotate the signing key yearly.',
          scope: 'global',
        }),
      );
      const other = await ok(
        ops.client.post<{ id: string }>('/memories/add', { content: 'Ops: page twice.', agent_id: 'ops' }),
      );
      await ok(ops.client.post(`/memories/ace/vote/${note.id}`, { vote: 'helpful', voter_agent_id: 'ops' }));
      await ok(
        ops.client.post('/ace/run', {
          run_id: 'r1',
          agent_id: 'alice',
          task_type: 'rotate',
          memory_ids_used: [note.id],
        }),
      );
      await ok(
        ops.client.post('/ace/run/r1/complete', { success: false, evaluation: { error: 'HSM offline' } }),
      );
      await ok(security.client.request('PATCH', `/memories/${other.id}`, { scope: 'global' }));
      await ok(
        ops.client.post(`/memories/${other.id}/deprecate`, { agent_id: 'ops', reason: 'paging changed' }),
      );
      await ok(ops.client.request('DELETE', `/memories/${other.id}?agent_id=ops`));
      const refused = await alice.client.post('/memories/add', { content: `token ${GITHUB_TOKEN}` });
      assert.equal(refused.status, 422, refused.text);
      await ok(alice.client.post('/memories/ace/session', { session_id: 's1' }));
      const refusedText = await alice.client.request('PATCH', '/memories/ace/session/s1', {
        summary: GITHUB_TOKEN,
      });
      assert.equal(refusedText.status, 422, refusedText.text);

      const log = await events(security.client);
      const byType = (type: string) => log.filter((e) => e.event_type === type);
      // 'bootstrap' is SERVICE_API_KEY, the instance administrator that created the project and its admin key.
      const keyIds = new Set(['bootstrap', created.key_id, alice.id, ops.id, security.id]);
      // Every event of the project names a key of the project that acted.
      for (const e of log) {
        assert.ok(keyIds.has(e.api_key_id), `${e.event_type} names key "${e.api_key_id}"`);
        assert.ok(!JSON.stringify(e).includes(GITHUB_TOKEN), 'no secret in the audit log');
      }
      const pairs = (rows: string[][]) => rows.map((r) => r.join(' by ')).sort();
      assert.deepEqual(
        pairs(byType('KEY_CREATED').map((e) => [String(e.details.key_id), e.api_key_id])),
        pairs([
          [created.key_id, 'bootstrap'],
          [alice.id, created.key_id],
          [ops.id, created.key_id],
          [security.id, created.key_id],
          [doomed.id, created.key_id],
        ]),
      );
      const created4 = byType('KEY_CREATED');
      const listing = created4.find((e) => e.details.key_id === ops.id)!;
      assert.deepEqual([listing.details.agent_ids, listing.details.any_agent], [['ops', 'alice'], false]);
      assert.deepEqual(
        byType('KEY_REVOKED').map((e) => [e.api_key_id, e.details.key_id]),
        [[created.key_id, doomed.id]],
      );
      const expect = (type: string, key: string) => {
        const found = byType(type);
        assert.ok(found.length > 0, `a ${type} event`);
        for (const e of found) assert.equal(e.api_key_id, key, type);
      };
      expect('DEDUPLICATED', alice.id);
      expect('VOTED', ops.id);
      expect('RUN_COMPLETED', ops.id);
      expect('SCOPE_CHANGED', security.id);
      expect('MEMORY_DEPRECATED', ops.id);
      expect('MEMORY_DELETED', ops.id);
      assert.deepEqual(
        byType('SECURITY_REJECTED')
          .map((e) => e.api_key_id)
          .sort(),
        [alice.id, alice.id],
      );
      assert.deepEqual(
        byType('MEMORY_CREATED')
          .map((e) => e.api_key_id)
          .sort(),
        [alice.id, ops.id, ops.id].sort(),
        'the note, ops’ memory and the run’s reflection (written with the completing key)',
      );

      assert.deepEqual(
        byType('PROJECT_CREATED').map((e) => [e.api_key_id, e.details.project_id]),
        [['bootstrap', 'audited']],
      );
    });
  });
}
