import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import {
  eventsOf,
  GITHUB_TOKEN,
  memoriesOf,
  provenanceOf,
  type MemoryBody,
  type WriteBody,
} from './helpers.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface ImportBody {
  results: {
    index: number;
    id?: string;
    deduplicated: boolean;
    scope?: string;
    error?: { status: number; reason: string; code: string };
  }[];
}

type Row = Record<string, unknown> & { id: string; content: string };

/** POST /memories/import: the export of one Engram written into another through the full pipeline. */
for (const engine of ENGINES) {
  describe(`import of exported memories (${engine})`, function () {
    this.timeout(90_000);
    let source: TestEngram;
    let target: TestEngram;
    let rows: Row[];

    const write = async (body: Record<string, unknown>, path = '/memories/add') => {
      const res = await source.admin.post<WriteBody>(path, body);
      assert.equal(res.status, 200, res.text);
      return res.body.id;
    };

    before(async () => {
      [source, target] = await Promise.all([startTestEngram(engine), startTestEngram(engine)]);
      await write({
        content: 'Billing retries use exponential backoff capped at 30 s.',
        agent_id: 'planner',
        scope: 'agent-shared',
        shared_with: ['coder'],
        namespace: 'ops',
      });
      await write(
        {
          content: 'Rotate the signing key.',
          agent_id: 'planner',
          steps: ['revoke', 'issue'],
          namespace: 'ops',
        },
        '/memories/typed/procedural',
      );
      await write(
        {
          content: 'User asked for a refund.',
          agent_id: 'planner',
          session_id: 's-1',
          sequence_number: 4,
          namespace: 'ops',
        },
        '/memories/typed/episodic',
      );
      const stale = await write({
        content: 'The cache TTL is 5 minutes.',
        agent_id: 'planner',
        namespace: 'ops',
      });
      const dep = await source.admin.post(`/memories/${stale}/deprecate`, {
        agent_id: 'planner',
        reason: 'changed',
      });
      assert.equal(dep.status, 200, dep.text);
      const edited = await write({
        content: 'Deploys need one approval.',
        agent_id: 'planner',
        namespace: 'ops',
      });
      // Tampering at the source: the row no longer matches its signature.
      await source.engram.db
        .knex('memories')
        .where({ id: edited })
        .update({ content: 'Deploys need no approval.' });
      const res = await source.admin.post('/memories/export', { namespace: 'ops', include_deprecated: true });
      assert.equal(res.status, 200, res.text);
      rows = res.text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Row);
      assert.equal(rows.length, 5);
    });
    after(async () => {
      await Promise.all([source?.stop(), target?.stop()]);
    });

    it('stores every live, genuine row under a new id with its type, scope and fields, signed by the target', async () => {
      const res = await target.admin.post<ImportBody>('/memories/import', { memories: rows });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.results.length, rows.length);
      const byContent = new Map(rows.map((r, i) => [r.content, res.body.results[i]!]));

      const shared = byContent.get('Billing retries use exponential backoff capped at 30 s.')!;
      assert.equal(shared.error, undefined);
      assert.ok(shared.id && !rows.some((r) => r.id === shared.id), 'a new id');
      const got = await target.admin.get<MemoryBody & { shared_with: string[]; namespace: string }>(
        `/memories/${shared.id}?agent_id=planner`,
      );
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.scope, 'agent-shared');
      assert.deepEqual(got.body.shared_with, ['coder']);
      assert.equal(got.body.namespace, 'ops');
      const verify = await target.admin.post<{ valid: boolean; format: string }>(
        `/security/verify/${shared.id}`,
        {},
      );
      assert.deepEqual([verify.body.valid, verify.body.format], [true, 'v2']);

      const procedural = byContent.get('Rotate the signing key.')!;
      const proc = await target.admin.get<MemoryBody & { memory_type: string; steps: string[] }>(
        `/memories/${procedural.id}?agent_id=planner`,
      );
      assert.equal(proc.body.memory_type, 'procedural');
      assert.deepEqual(proc.body.steps, ['revoke', 'issue']);

      const episodic = byContent.get('User asked for a refund.')!;
      const timeline = await target.admin.get<{ memories: { id: string; sequence_number: number }[] }>(
        `/memories/typed/episodic/session/s-1?agent_id=planner&namespace=ops`,
      );
      assert.equal(timeline.status, 200, timeline.text);
      assert.deepEqual(
        timeline.body.memories.map((m) => [m.id, m.sequence_number]),
        [[episodic.id, 4]],
      );

      const p = await provenanceOf(target, shared.id);
      assert.equal(p.kind, 'import');
      assert.equal(p.channel, 'rest');
    });

    it('refuses deprecated rows and rows whose signature failed at the source, per item', async () => {
      const res = await target.admin.post<ImportBody>('/memories/import', { memories: rows });
      const byContent = new Map(rows.map((r, i) => [r.content, res.body.results[i]!]));
      assert.deepEqual(
        [
          byContent.get('The cache TTL is 5 minutes.')!.error?.status,
          byContent.get('The cache TTL is 5 minutes.')!.error?.reason,
        ],
        [400, 'DEPRECATED_NOT_IMPORTED'],
      );
      const tampered = byContent.get('Deploys need no approval.')!;
      assert.deepEqual(
        [tampered.error?.status, tampered.error?.reason],
        [400, 'INTEGRITY_INVALID_AT_SOURCE'],
      );
      const stored = await target.engram.db
        .knex('memories')
        .whereIn('content', ['The cache TTL is 5 minutes.', 'Deploys need no approval.']);
      assert.equal(stored.length, 0);
      // The second import of the same rows finds the first one's memories.
      assert.equal(byContent.get('Rotate the signing key.')!.deduplicated, true);
    });

    it('screens imported content like any write: a secret is rejected and audited, nothing stored', async () => {
      const res = await target.admin.post<ImportBody>('/memories/import', {
        memories: [{ ...rows[0], content: `the deploy token is ${GITHUB_TOKEN}`, agent_id: 'smuggler' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.results[0]!.error?.status, res.body.results[0]!.error?.reason],
        [422, 'SECURITY_REJECTED'],
      );
      assert.ok(!res.text.includes(GITHUB_TOKEN));
      assert.equal((await memoriesOf(target, 'smuggler')).length, 0);
      const events = await eventsOf(target, 'SECURITY_REJECTED', 'smuggler');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.details.kind, 'import');
    });

    it('answers 400 for an empty or oversized import', async () => {
      for (const memories of [[], Array.from({ length: 101 }, () => rows[0])]) {
        const res = await target.admin.post<{ error: { reason: string } }>('/memories/import', { memories });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.reason, 'VALIDATION_FAILED');
      }
    });
  });
}
