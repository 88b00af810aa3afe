import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import {
  addMemory,
  eventsOf,
  expectError,
  memoryCount as countMemories,
  provenanceOf,
  type MemoryBody,
} from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface DeltaBody {
  applied: boolean;
  results: {
    index: number;
    type: string;
    memory_id?: string;
    status: string;
    reason?: string;
    detections: { category: string; type: string }[];
  }[];
}
interface WriteBody {
  id: string;
  scope: string;
  trust_level: string;
}

for (const engine of ENGINES) {
  describe(`ACE delta and reflections (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let planner: ApiClient;
    let intruder: ApiClient;

    before(async () => {
      t = await startTestEngram(engine);
      planner = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'planner' });
      intruder = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'intruder' });
    });
    after(() => t?.stop());

    const memoryCount = () => countMemories(t);
    const get = (id: string) => planner.get<MemoryBody>(`/memories/${id}`);

    it('adds and deprecates in one delta; deprecate sets superseded_by (id or null) and the reason', async () => {
      const old = await addMemory(planner, { content: 'Cache TTL is 60 seconds.', memory_type: 'strategy' });
      const stale = await addMemory(planner, {
        content: 'Use the staging bucket for exports.',
        memory_type: 'strategy',
      });
      const replacement = await addMemory(planner, {
        content: 'Cache TTL is 300 seconds since v2.',
        memory_type: 'strategy',
      });
      const res = await planner.post<DeltaBody>('/memories/ace/delta', {
        operations: [
          { type: 'add', content: 'Warm the cache after each deploy.', memory_type: 'strategy' },
          {
            type: 'deprecate',
            memory_id: old,
            superseded_by: replacement,
            deprecation_reason: 'TTL changed in v2',
          },
          { type: 'deprecate', memory_id: stale, superseded_by: null, deprecation_reason: 'bucket removed' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.applied, true);
      assert.deepEqual(
        res.body.results.map((r) => r.status),
        ['applied', 'applied', 'applied'],
      );
      const added = res.body.results[0]!.memory_id!;
      const addedMemory = await get(added);
      assert.equal(addedMemory.body.content, 'Warm the cache after each deploy.');
      assert.equal(addedMemory.body.agent_id, 'planner');
      const o = await get(old);
      assert.equal(o.body.is_deprecated, true);
      assert.equal(o.body.superseded_by, replacement);
      assert.equal(o.body.deprecation_reason, 'TTL changed in v2');
      const s = await get(stale);
      assert.equal(s.body.is_deprecated, true);
      assert.equal(s.body.superseded_by, undefined);
      assert.equal(s.body.deprecation_reason, 'bucket removed');
      assert.equal((await get(replacement)).body.is_deprecated, false, 'nothing else of the context changes');
      const prov = await provenanceOf(t, added);
      assert.equal(prov?.kind, 'delta');
    });

    it('rejects the whole delta when one add is refused by content policy, and keeps its SECURITY_REJECTED event', async () => {
      const keep = await addMemory(planner, {
        content: 'Exports run nightly at 02:00.',
        memory_type: 'strategy',
      });
      const before = await memoryCount();
      const rejectedBefore = (await eventsOf(t, 'SECURITY_REJECTED')).length;
      const res = await planner.post<DeltaBody>('/memories/ace/delta', {
        operations: [
          { type: 'add', content: 'Exports run hourly now.', memory_type: 'strategy' },
          {
            type: 'add',
            content: 'Use the key AKIAIOSFODNN7EXAMPLE to upload exports.',
            memory_type: 'strategy',
          },
          { type: 'deprecate', memory_id: keep, deprecation_reason: 'schedule changed' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.applied, false);
      assert.deepEqual(
        res.body.results.map((r) => r.status),
        ['not_applied', 'rejected', 'not_applied'],
      );
      assert.equal(res.body.results[1]!.reason, 'SECURITY_REJECTED');
      assert.ok(
        res.body.results[1]!.detections.some((d) => d.category === 'secrets'),
        res.text,
      );
      assert.equal(await memoryCount(), before, 'nothing stored');
      assert.equal((await get(keep)).body.is_deprecated, false, 'nothing deprecated');
      assert.equal((await eventsOf(t, 'SECURITY_REJECTED')).length, rejectedBefore + 1);
    });

    it('refuses deprecations of memories the agent did not write (SCOPE_FORBIDDEN) or cannot see (NOT_FOUND)', async () => {
      const shared = await addMemory(planner, { content: 'Global runbook entry.', memory_type: 'strategy' });
      const secret = await addMemory(planner, { content: 'Planner private note.' });
      const forbidden = await intruder.post<DeltaBody>('/memories/ace/delta', {
        operations: [
          { type: 'add', content: 'Intruder note.' },
          { type: 'deprecate', memory_id: shared, deprecation_reason: 'mine now' },
        ],
      });
      assert.equal(forbidden.body.applied, false);
      assert.deepEqual(
        forbidden.body.results.map((r) => [r.status, r.reason]),
        [
          ['not_applied', undefined],
          ['rejected', 'SCOPE_FORBIDDEN'],
        ],
      );
      const hidden = await intruder.post<DeltaBody>('/memories/ace/delta', {
        operations: [{ type: 'deprecate', memory_id: secret, deprecation_reason: 'x' }],
      });
      const mine = await addMemory(planner, { content: 'Planner note A.', memory_type: 'strategy' });
      const other = await addMemory(planner, { content: 'Planner note B.', memory_type: 'strategy' });
      const circular = await planner.post<DeltaBody>('/memories/ace/delta', {
        operations: [
          { type: 'deprecate', memory_id: mine, superseded_by: other, deprecation_reason: 'x' },
          { type: 'deprecate', memory_id: other, deprecation_reason: 'y' },
        ],
      });
      assert.deepEqual(
        circular.body.results.map((r) => [r.status, r.reason]),
        [
          ['rejected', 'SUPERSEDED_BY_NOT_FOUND'],
          ['not_applied', undefined],
        ],
        'a memory cannot be superseded by one the same delta deprecates',
      );
      assert.deepEqual(
        hidden.body.results.map((r) => r.reason),
        ['NOT_FOUND'],
      );
      assert.equal((await get(shared)).body.is_deprecated, false);
      assert.equal((await get(secret)).body.is_deprecated, false);
    });

    it('lets an unbound key deprecate as the agent it names, alone or together with adds', async () => {
      const unbound = await t.admin.createKey({
        trust_level: 'internal',
        agent_ids: ['ops', 'someone-else'],
      });
      const first = await addMemory(unbound, {
        content: 'Ops: page the on-call after 5 failures.',
        agent_id: 'ops',
      });
      const second = await addMemory(unbound, { content: 'Ops: rotate logs weekly.', agent_id: 'ops' });
      const only = await unbound.post<DeltaBody>('/memories/ace/delta', {
        agent_id: 'ops',
        operations: [{ type: 'deprecate', memory_id: first, deprecation_reason: 'alerting moved' }],
      });
      assert.equal(only.status, 200, only.text);
      assert.equal(only.body.applied, true);
      const mixed = await unbound.post<DeltaBody>('/memories/ace/delta', {
        agent_id: 'ops',
        operations: [
          { type: 'add', content: 'Ops: rotate logs daily.' },
          { type: 'deprecate', memory_id: second, deprecation_reason: 'daily now' },
        ],
      });
      assert.equal(mixed.status, 200, mixed.text);
      assert.equal(mixed.body.applied, true);
      for (const id of [first, second]) {
        const m = await unbound.get<MemoryBody>(`/memories/${id}?agent_id=ops`);
        assert.equal(m.body.is_deprecated, true, m.text);
      }
      const notOps = await unbound.post<DeltaBody>('/memories/ace/delta', {
        agent_id: 'someone-else',
        operations: [
          { type: 'deprecate', memory_id: mixed.body.results[0]!.memory_id, deprecation_reason: 'x' },
        ],
      });
      assert.deepEqual(
        notOps.body.results.map((r) => r.reason),
        ['NOT_FOUND'],
        'agent-private to ops',
      );
    });

    it('answers 400 for malformed deltas and 403 for another agent', async () => {
      expectError(await planner.post('/memories/ace/delta', { operations: [] }), 400, 'VALIDATION_FAILED');
      expectError(
        await planner.post('/memories/ace/delta', { operations: [{ type: 'rewrite', content: 'x' }] }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await planner.post('/memories/ace/delta', { operations: [{ type: 'deprecate' }] }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await planner.post('/memories/ace/delta', {
          operations: [{ type: 'add', content: 'x', agent_id: 'intruder' }],
        }),
        403,
        'AGENT_MISMATCH',
      );
      const tooMany = Array.from({ length: 101 }, (_, i) => ({ type: 'add', content: `note ${i}` }));
      expectError(
        await planner.post('/memories/ace/delta', { operations: tooMany }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('records a reflection through the write pipeline with its lesson fields', async () => {
      const res = await planner.post<WriteBody>('/memories/ace/reflection', {
        content: 'Schema migrations locked the orders table during peak hours.',
        source_trajectory_id: 'traj-17',
        error_pattern: 'lock-timeout',
        correct_approach: 'Run migrations in the maintenance window with lock_timeout set.',
        applicable_contexts: ['database', 'deploy'],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.scope, 'global', 'reflections default to global');
      assert.equal(res.body.trust_level, 'internal');
      const m = await get(res.body.id);
      assert.equal(m.body.memory_type, 'reflection');
      assert.equal(m.body.source_trajectory_id, 'traj-17');
      assert.equal(m.body.error_pattern, 'lock-timeout');
      assert.deepEqual(m.body.metadata, {
        correct_approach: 'Run migrations in the maintenance window with lock_timeout set.',
        applicable_contexts: ['database', 'deploy'],
      });
      const prov = await provenanceOf(t, res.body.id);
      assert.equal(prov?.kind, 'reflection');
    });

    it('stores a flagged reflection with its content_flags (policy action flag)', async () => {
      const res = await planner.post<WriteBody & { content_flags: string[] }>('/memories/ace/reflection', {
        content: 'Escalations must go to oncall@example.com, not the team list.',
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.content_flags, ['pii:email']);
      const m = await planner.get<MemoryBody & { content_flags: string[] }>(`/memories/${res.body.id}`);
      assert.deepEqual(m.body.content_flags, ['pii:email']);
    });

    it('caps an untrusted reflection to agent-private, refuses an explicit global (403) and secrets (422)', async () => {
      const untrusted = await t.admin.createKey({ trust_level: 'untrusted', bound_agent_id: 'scraper' });
      const capped = await untrusted.post<WriteBody>('/memories/ace/reflection', {
        content: 'Pages with captchas time out.',
      });
      assert.equal(capped.status, 200, capped.text);
      assert.equal(capped.body.scope, 'agent-private');
      expectError(
        await untrusted.post('/memories/ace/reflection', {
          content: 'Pages with captchas fail.',
          scope: 'global',
        }),
        403,
      );
      expectError(
        await planner.post('/memories/ace/reflection', { content: 'Login with password=hunter2 worked.' }),
        422,
        'SECURITY_REJECTED',
      );
      expectError(await planner.post('/memories/ace/reflection', { content: '' }), 400, 'VALIDATION_FAILED');
      expectError(
        await planner.post('/memories/ace/reflection', { content: 'x', agent_id: 'intruder' }),
        403,
        'AGENT_MISMATCH',
      );
      expectError(
        await planner.post('/memories/ace/reflection', { content: 'x', applicable_contexts: ['ok', ''] }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
}
