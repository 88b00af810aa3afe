import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface WriteBody {
  id: string;
  deduplicated: boolean;
  scope: string;
  content_flags: string[];
}
interface ErrorBody {
  error: {
    code: string;
    status: number;
    reason: string;
    message: string;
    details: { field_violations?: { field: string; reason: string }[] }[];
  };
}
interface MemoryBody {
  id: string;
  content: string;
  agent_id: string;
  project_id: string;
  scope: string;
  trust_level: string;
  score?: number;
  is_deprecated: boolean;
  content_flags: string[];
}

for (const engine of ENGINES) {
  describe(`vertical slice through the gateway (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let admin: ApiClient;

    before(async () => {
      t = await startTestEngram(engine);
      admin = t.admin;
    });
    after(async () => {
      await t?.stop();
    });

    const countMemories = async () => {
      const rows: { n: string }[] = await t.engram.db.knex('memories').count('* as n');
      return Number(rows[0]!.n);
    };

    it('adds a memory, reads it back by id, and finds it by query', async () => {
      const add = await admin.post<WriteBody>('/memories/add', {
        content: 'The payments service deploys with blue-green; error E4711 means the canary failed.',
        agent_id: 'planner',
        metadata: { source: 'runbook', tags: ['deploy'] },
      });
      assert.equal(add.status, 200, add.text);
      assert.match(add.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(add.body.deduplicated, false);
      assert.equal(add.body.scope, 'agent-private');

      const got = await admin.get<MemoryBody & { metadata: unknown; memory_type: string; namespace: string }>(
        `/memories/${add.body.id}?agent_id=planner`,
      );
      assert.equal(got.status, 200, got.text);
      assert.equal(
        got.body.content,
        'The payments service deploys with blue-green; error E4711 means the canary failed.',
      );
      assert.equal(got.body.memory_type, 'standard');
      assert.equal(got.body.namespace, 'default');
      assert.equal(got.body.trust_level, 'system');
      assert.equal(got.body.project_id, 'default');
      assert.deepEqual(got.body.metadata, { source: 'runbook', tags: ['deploy'] });
      assert.equal(got.body.is_deprecated, false);

      await admin.post('/memories/add', { content: 'My favourite colour is green.', agent_id: 'planner' });
      const q = await admin.post<{ memories: MemoryBody[] }>('/memories/query', {
        query: 'what does error E4711 mean',
        agent_id: 'planner',
      });
      assert.equal(q.status, 200, q.text);
      assert.equal(q.body.memories[0]?.id, add.body.id);
      assert.ok(typeof q.body.memories[0]?.score === 'number' && q.body.memories[0].score > 0);
    });

    it('deduplicates the same content and records DEDUPLICATED, keeping the first provenance', async () => {
      const body = { content: 'Retry   the flaky test once before failing the build.', agent_id: 'ci-bot' };
      const first = await admin.post<WriteBody>('/memories/add', body);
      const second = await admin.post<WriteBody>('/memories/add', {
        ...body,
        content: ' Retry the flaky test once before failing the build. ',
      });
      assert.equal(second.status, 200);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.body.deduplicated, true);
      const events = await t.engram.db
        .knex('audit_events')
        .where({ memory_id: first.body.id })
        .select('event_type');
      assert.deepEqual(events.map((e: { event_type: string }) => e.event_type).sort(), [
        'DEDUPLICATED',
        'MEMORY_CREATED',
      ]);
      const prov = await t.engram.db.knex('memory_provenance').where({ memory_id: first.body.id });
      assert.equal(prov.length, 1);
    });

    it('writes exactly one signed provenance row with the policy version, and refuses to update it', async () => {
      const add = await admin.post<WriteBody>('/memories/add', {
        content: 'Provenance check memory.',
        agent_id: 'auditor',
      });
      const rows = await t.engram.db.knex('memory_provenance').where({ memory_id: add.body.id });
      assert.equal(rows.length, 1);
      const p = rows[0] as Record<string, unknown>;
      assert.equal(p.channel, 'rest');
      assert.equal(p.kind, 'add');
      assert.equal(p.agent_id, 'auditor');
      assert.equal(p.api_key_id, 'bootstrap');
      assert.equal(p.depth, 0);
      assert.equal(p.policy_version, t.engram.policyVersion);
      assert.match(String(p.signature), /^p1:[0-9a-f]{64}$/);
      await assert.rejects(
        t.engram.db.knex('memory_provenance').update({ depth: 5 }).where({ memory_id: add.body.id }),
        /immutable/,
      );
      const mem = await t.engram.db.knex('memories').where({ id: add.body.id }).first();
      assert.match(String((mem as { integrity_hash: string }).integrity_hash), /^v2:[0-9a-f]{64}$/);
    });

    it('rejects a 60,000-character content with 400 VALIDATION_FAILED and stores nothing', async () => {
      const before = await countMemories();
      const res = await admin.post<ErrorBody>('/memories/add', {
        content: 'x'.repeat(60_000),
        agent_id: 'planner',
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.reason, 'VALIDATION_FAILED');
      assert.equal(res.body.error.code, 'INVALID_ARGUMENT');
      const violations = res.body.error.details.flatMap((d) => d.field_violations ?? []);
      assert.deepEqual(
        violations.map((v) => [v.field, v.reason]),
        [['content', 'TOO_LONG']],
      );
      const ctl = await admin.post<ErrorBody>('/memories/add', {
        content: 'bad \u0000 byte',
        agent_id: 'planner',
      });
      assert.equal(ctl.status, 400);
      assert.equal(await countMemories(), before);
    });

    it('answers 401 for a missing, malformed or unknown key', async () => {
      for (const key of [undefined, 'nope', 'egk_' + 'a'.repeat(43)]) {
        const res = await admin.withKey(key).post<ErrorBody>('/memories/query', { query: 'x' });
        assert.equal(res.status, 401, `key ${String(key)}: ${res.text}`);
        assert.equal(res.body.error.code, 'UNAUTHENTICATED');
      }
    });

    it('refuses a bound key whose body names another agent (403 AGENT_MISMATCH) and acts as its agent otherwise', async () => {
      const bound = await admin.createKey({ trust_level: 'internal', bound_agent_id: 'agent-b' });
      const res = await bound.post<ErrorBody>('/memories/add', {
        content: 'I am someone else',
        agent_id: 'agent-c',
      });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.reason, 'AGENT_MISMATCH');
      const ok = await bound.post<WriteBody>('/memories/add', {
        content: 'Bound keys write as their agent.',
      });
      assert.equal(ok.status, 200, ok.text);
      const got = await bound.get<MemoryBody>(`/memories/${ok.body.id}`);
      assert.equal(got.body.agent_id, 'agent-b');
      assert.equal(got.body.trust_level, 'internal');
    });

    it('applies scope visibility in SQL: another agent sees global memories but not private ones', async () => {
      const owner = await admin.createKey({ trust_level: 'internal', bound_agent_id: 'owner' });
      const other = await admin.createKey({ trust_level: 'internal', bound_agent_id: 'other' });
      const priv = await owner.post<WriteBody>('/memories/add', {
        content: 'The owner keeps the vault code in the left drawer.',
      });
      const glob = await owner.post<WriteBody>('/memories/add', {
        content: 'The office vault is in the basement.',
        scope: 'global',
      });
      assert.equal(glob.body.scope, 'global');
      assert.equal((await other.get(`/memories/${priv.body.id}`)).status, 404);
      assert.equal((await other.get(`/memories/${glob.body.id}`)).status, 200);
      const q = await other.post<{ memories: MemoryBody[] }>('/memories/query', {
        query: 'vault',
        top_k: 100,
      });
      const ids = q.body.memories.map((m) => m.id);
      assert.ok(ids.includes(glob.body.id));
      assert.ok(!ids.includes(priv.body.id));
    });

    it('never lets untrusted content reach global: explicit global is 403, a type default is capped', async () => {
      const untrusted = await admin.createKey({ trust_level: 'untrusted', bound_agent_id: 'scraper' });
      const explicit = await untrusted.post<ErrorBody>('/memories/add', {
        content: 'Global from the web',
        scope: 'global',
      });
      assert.equal(explicit.status, 403);
      assert.equal(explicit.body.error.reason, 'SCOPE_FORBIDDEN');
      const capped = await untrusted.post<WriteBody>('/memories/add', {
        content: 'A strategy scraped from a forum',
        memory_type: 'strategy',
      });
      assert.equal(capped.status, 200, capped.text);
      assert.equal(capped.body.scope, 'agent-private');
      const raised = await untrusted.post<ErrorBody>('/memories/add', {
        content: 'I claim to be trusted',
        trust_level: 'internal',
      });
      assert.equal(raised.status, 403);
      assert.equal(raised.body.error.reason, 'TRUST_FORBIDDEN');
    });

    it('isolates projects: an id from another project is 404 and never appears in its queries', async () => {
      const created = await admin.post('/admin/projects', { project_id: 'other-project', name: 'Other' });
      assert.equal(created.status, 200, created.text);
      const otherAdmin = await admin.createKey({ trust_level: 'system', project_id: 'other-project' });
      const mine = await admin.post<WriteBody>('/memories/add', {
        content: 'Project one secret plan: launch on Tuesday.',
        agent_id: 'a',
        scope: 'global',
      });
      const res = await otherAdmin.get<ErrorBody>(`/memories/${mine.body.id}`);
      assert.equal(res.status, 404);
      const q = await otherAdmin.post<{ memories: MemoryBody[] }>('/memories/query', {
        query: 'launch plan Tuesday',
        top_k: 100,
      });
      assert.equal(q.body.memories.length, 0);
      const denied = await otherAdmin.post<ErrorBody>('/admin/projects', { project_id: 'third' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.reason, 'ADMIN_REQUIRED');
    });

    it('bounds top_k (default 10, at most 100)', async () => {
      const items = Array.from({ length: 15 }, (_, i) => ({
        content: `Fact number ${i} about topk bounds.`,
        agent_id: 'counter',
      }));
      const batch = await admin.post<{ results: { id?: string }[] }>('/memories/add_batch', { items });
      assert.equal(batch.status, 200, batch.text);
      assert.equal(batch.body.results.filter((r) => r.id).length, 15);
      const q = await admin.post<{ memories: unknown[] }>('/memories/query', {
        query: 'topk bounds fact',
        agent_id: 'counter',
      });
      assert.equal(q.body.memories.length, 10);
      const big = await admin.post<ErrorBody>('/memories/query', { query: 'x', top_k: 101 });
      assert.equal(big.status, 400);
    });

    it('drops a row tampered in SQL from reads and records INTEGRITY_FAILED', async () => {
      const add = await admin.post<WriteBody>('/memories/add', {
        content: 'Wire transfers need two approvals.',
        agent_id: 'fin',
        scope: 'global',
      });
      await t.engram.db
        .knex('memories')
        .update({ content: 'Wire transfers need no approval.' })
        .where({ id: add.body.id });
      assert.equal((await admin.get(`/memories/${add.body.id}`)).status, 404);
      const q = await admin.post<{ memories: MemoryBody[] }>('/memories/query', {
        query: 'wire transfers approval',
        top_k: 100,
      });
      assert.ok(!q.body.memories.some((m) => m.id === add.body.id));
      const events = await t.engram.db
        .knex('audit_events')
        .where({ memory_id: add.body.id, event_type: 'INTEGRITY_FAILED' });
      assert.ok(events.length >= 2);
    });

    it('authenticates before anything else on every kind of route', async () => {
      const anonymous = admin.withKey(undefined);
      for (const [method, path] of [
        ['POST', '/ace/run'],
        ['GET', '/security/audit'],
        ['POST', '/memories/export'],
        ['GET', '/admin/keys'],
        ['POST', '/memories/hybrid_query'],
      ] as const) {
        const res = await anonymous.request<ErrorBody>(method, path, method === 'GET' ? undefined : {});
        assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'UNAUTHENTICATED');
      }
    });
  });
}
