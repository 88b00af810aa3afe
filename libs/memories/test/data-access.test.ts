import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Reader } from '@engram/auth';
import type { Database } from '@engram/db';
import { vectorLiteral } from '@engram/embeddings';
import {
  byEffectiveness,
  countVotes,
  deepestProvenance,
  flaggedMemories,
  hasMemoriesTable,
  lexicalSearch,
  loadEffectiveness,
  memoryInProject,
  nearestMemories,
  playbookCandidates,
  provenanceDepths,
  similarPairs,
  upsertVote,
  visibleByIds,
  visibleIds,
  type MemorySearch,
} from '@engram/memories';
import { ENGINES, type EngineDatabase } from '@engram/testing';
import { openMemoryStore } from './store.ts';

/**
 * The statements of the data-access library on a real store (memory-store's and ace-feedback's
 * migrations, the embedding column pinned to 3 dimensions), rows written directly: who sees what,
 * in which order, with which votes and provenance.
 */

const A: Reader = { projectId: 'p', agentId: 'a', seesAll: false };
const ADMIN: Reader = { projectId: 'p', agentId: 'admin', seesAll: true };

interface Row {
  project?: string;
  agent: string;
  content: string;
  type?: string;
  scope?: 'global' | 'agent-private' | 'agent-shared';
  sharedWith?: string[];
  flags?: string[];
  deprecated?: boolean;
  vector: [number, number, number];
  createdAt: string;
}

const ROWS = {
  // a's global fact, the query's nearest.
  m1: {
    agent: 'a',
    content: 'disk full error E42 on the build host',
    vector: [1, 0, 0],
    createdAt: '2026-01-01T00:00:01Z',
  },
  // b's private fact: a never sees it.
  m2: {
    agent: 'b',
    content: 'disk nearly full again',
    scope: 'agent-private',
    vector: [0.99, 0.1, 0],
    createdAt: '2026-01-01T00:00:02Z',
  },
  // b's playbook shared with a.
  m3: {
    agent: 'b',
    content: 'rotate the logs when the disk fills',
    type: 'playbook',
    scope: 'agent-shared',
    sharedWith: ['a'],
    vector: [0.9, 0.3, 0],
    createdAt: '2026-01-01T00:00:03Z',
  },
  // c's deprecated fact: seen by id, never searched.
  m4: {
    agent: 'c',
    content: 'disk full: buy disks',
    deprecated: true,
    vector: [1, 0, 0],
    createdAt: '2026-01-01T00:00:04Z',
  },
  // Another project's memory.
  m5: {
    project: 'q',
    agent: 'a',
    content: 'disk full elsewhere',
    vector: [1, 0, 0],
    createdAt: '2026-01-01T00:00:05Z',
  },
  // a's flagged playbook, far from the query.
  m6: {
    agent: 'a',
    content: 'call the on-call phone',
    type: 'playbook',
    flags: ['pii'],
    vector: [0, 1, 0],
    createdAt: '2026-01-01T00:00:06Z',
  },
  // b's private flagged memory, newer: an administrator's listing shows it.
  m7: {
    agent: 'b',
    content: 'the admin password is in the vault',
    scope: 'agent-private',
    flags: ['secret'],
    vector: [0.1, 0, 1],
    createdAt: '2026-01-01T00:00:07Z',
  },
} satisfies Record<string, Row>;
type Name = keyof typeof ROWS;

const search = (over: Partial<MemorySearch> = {}): MemorySearch => ({
  reader: A,
  namespace: 'n',
  vector: [1, 0, 0],
  memoryTypes: [],
  scopes: [],
  authors: [],
  ...over,
});

for (const engine of ENGINES) {
  describe(`@engram/memories statements (${engine})`, function () {
    this.timeout(120_000);
    let store: EngineDatabase | undefined;
    let db: Database;
    const id = Object.fromEntries(Object.keys(ROWS).map((k) => [k, randomUUID()])) as Record<Name, string>;
    const name = (memoryId: string) => (Object.keys(id) as Name[]).find((k) => id[k] === memoryId);
    const names = (ms: readonly { id: string }[]) => ms.map((m) => name(m.id));

    before(async () => {
      store = await openMemoryStore(engine);
      db = store.db;
      for (const [k, r] of Object.entries(ROWS) as [Name, Row][]) {
        await db.knex('memories').insert({
          id: id[k],
          project_id: r.project ?? 'p',
          namespace: 'n',
          agent_id: r.agent,
          content: r.content,
          content_key: r.content,
          memory_type: r.type ?? 'fact',
          scope: r.scope ?? 'global',
          trust_level: 'verified',
          content_flags: r.flags ?? [],
          shared_with: r.sharedWith ?? [],
          is_deprecated: r.deprecated ?? false,
          embedding: vectorLiteral(r.vector),
          created_at: r.createdAt,
          updated_at: r.createdAt,
        });
      }
      const provenance = (memoryId: string, depth: number) => ({
        memory_id: memoryId,
        project_id: 'p',
        channel: 'grpc',
        kind: 'direct',
        agent_id: 'a',
        api_key_id: 'k',
        depth,
        verdict: {},
        policy_version: 'v',
        signature: 's',
      });
      await db.knex('memory_provenance').insert([provenance(id.m1, 0), provenance(id.m3, 2)]);
      await db.knex('runs').insert({
        project_id: 'p',
        run_id: 'r1',
        agent_id: 'runner',
        task_type: 'deploy',
        memory_ids_used: [id.m3],
        status: 'completed',
        success: true,
        api_key_id: 'k',
        completed_at: '2026-01-02T00:00:00Z',
      });
      const by = { projectId: 'p', apiKeyId: 'k' };
      await db.knex.transaction(async (trx) => {
        const ballot = { taskId: 't', context: '' };
        await upsertVote(trx, by, { ...ballot, memoryId: id.m1, voterAgentId: 'x', vote: 'helpful' });
        await upsertVote(trx, by, { ...ballot, memoryId: id.m1, voterAgentId: 'y', vote: 'helpful' });
        // x changes its mind: one voter, one ballot.
        await upsertVote(trx, by, { ...ballot, memoryId: id.m1, voterAgentId: 'x', vote: 'harmful' });
        await upsertVote(trx, by, { ...ballot, memoryId: id.m3, voterAgentId: 'x', vote: 'helpful' });
        await upsertVote(trx, by, { ...ballot, memoryId: id.m3, voterAgentId: 'y', vote: 'helpful' });
      });
    });
    after(async () => {
      await store?.close();
    });

    it('finds the memories table', async () => {
      assert.equal(await hasMemoriesTable(db.read), true);
    });

    it('answers by id only what the reader may see, deprecated included', async () => {
      const all = Object.values(id);
      assert.deepEqual(
        new Set([...(await visibleIds(db.read, A, all))].map(name)),
        new Set(['m1', 'm3', 'm4', 'm6']),
      );
      assert.deepEqual(
        new Set([...(await visibleIds(db.read, ADMIN, all))].map(name)),
        new Set(['m1', 'm2', 'm3', 'm4', 'm6', 'm7']),
      );
      const [m3] = await visibleByIds(db.read, A, [id.m2, id.m3, id.m5]);
      assert.equal(name(m3!.id), 'm3');
      assert.deepEqual(m3!.shared_with, ['a']);
      assert.equal(m3!.memory_type, 'playbook');
      assert.ok(m3!.created_at instanceof Date);
      assert.deepEqual(await visibleByIds(db.read, A, []), []);
    });

    it('ranks live visible memories by cosine similarity, filters in SQL', async () => {
      const hits = await nearestMemories(db, search(), 10, 0);
      assert.deepEqual(names(hits), ['m1', 'm3', 'm6']);
      assert.ok(Math.abs(hits[0]!.score - 1) < 1e-6);
      assert.ok(hits[0]!.score > hits[1]!.score && hits[1]!.score > hits[2]!.score);
      assert.deepEqual(names(await nearestMemories(db, search({ memoryTypes: ['playbook'] }), 10, 0)), [
        'm3',
        'm6',
      ]);
      assert.deepEqual(names(await nearestMemories(db, search({ minScore: 0.5 }), 10, 0)), ['m1', 'm3']);
      assert.deepEqual(names(await nearestMemories(db, search({ authors: ['b'] }), 10, 0)), ['m3']);
      // A page after the first row.
      assert.deepEqual(names(await nearestMemories(db, search(), 1, 1)), ['m3']);
      assert.deepEqual(names(await nearestMemories(db, search({ reader: ADMIN }), 10, 0)), [
        'm1',
        'm2',
        'm3',
        'm7',
        'm6',
      ]);
    });

    it('finds lexical hits among what the reader may see only', async () => {
      const hits = await lexicalSearch(db.read, search({ text: 'disk' }), 10);
      assert.deepEqual(new Set(names(hits)), new Set(['m1', 'm3']));
      for (const h of hits) assert.ok(h.lexicalScore! > 0);
      assert.deepEqual(names(await lexicalSearch(db.read, search({ text: 'E42' }), 10)), ['m1']);
      assert.deepEqual(await lexicalSearch(db.read, search({ text: '  ' }), 10), []);
    });

    it('keeps one ballot per voter and counts effectiveness', async () => {
      assert.deepEqual(await countVotes(db.read, 'p', id.m1), { helpful: 1, harmful: 1, score: 0 });
      assert.deepEqual(await countVotes(db.read, 'p', id.m6), { helpful: 0, harmful: 0, score: 0 });
      const all = await loadEffectiveness(db.read, 'p', [id.m1, id.m3, id.m6]);
      assert.deepEqual([...all.keys()].map(name).sort(), ['m1', 'm3']);
      assert.deepEqual(all.get(id.m3), { helpful: 2, harmful: 0, score: 2 / 3 });
      // Votes of another project do not count.
      assert.equal((await loadEffectiveness(db.read, 'q', [id.m1])).size, 0);
    });

    it('lists voted memories above or below an effectiveness threshold', async () => {
      const above = await byEffectiveness(db.read, A, 'n', 0.1, 'above', 10, 0);
      assert.deepEqual(names(above), ['m3']);
      assert.ok(Math.abs(above[0]!.effectiveness - 2 / 3) < 1e-9);
      // Unvoted m6 is not listed; m1 (score 0) is below 0.1.
      assert.deepEqual(names(await byEffectiveness(db.read, A, 'n', 0.1, 'below', 10, 0)), ['m1']);
    });

    it('reads provenance depths', async () => {
      const depths = await provenanceDepths(db.read, 'p', [id.m1, id.m3, id.m6]);
      assert.deepEqual([...depths.entries()].map(([k, v]) => [name(k), v]).sort(), [
        ['m1', 0],
        ['m3', 2],
      ]);
      assert.equal(await deepestProvenance(db.read, 'p', [id.m1, id.m3]), 2);
      assert.equal(await deepestProvenance(db.read, 'p', [id.m6]), undefined);
      assert.equal(await deepestProvenance(db.read, 'p', []), undefined);
    });

    it('ranks playbook candidates with effectiveness and the task-type record', async () => {
      const q = { reader: A, namespace: 'n', vector: [1, 0, 0], memoryTypes: ['playbook'] };
      const hits = await playbookCandidates(db, { ...q, taskType: 'deploy' }, 10, 0);
      assert.deepEqual(names(hits), ['m3', 'm6']);
      assert.equal(hits[0]!.taskHelpful, 1);
      assert.equal(hits[0]!.taskHarmful, 0);
      assert.ok(Math.abs(hits[0]!.effectiveness - 2 / 3) < 1e-9);
      assert.equal(hits[1]!.effectiveness, 0);
      assert.deepEqual(names(await playbookCandidates(db, { ...q, minEffectiveness: 0.5 }, 10, 0)), ['m3']);
      assert.equal((await playbookCandidates(db, q, 10, 0))[0]!.taskHelpful, 0);
    });

    it('pairs similar live memories inside visibility, each pair once', async () => {
      const opts = { neighbours: 3, maxMemories: 10 };
      const mine = await similarPairs(db, A, 'n', 0.9, opts);
      assert.deepEqual(
        mine.map((p) => [name(p.a), name(p.b)].sort()),
        [['m1', 'm3']],
      );
      const all = await similarPairs(db, ADMIN, 'n', 0.9, opts);
      assert.deepEqual(
        all.map((p) => [name(p.a), name(p.b)].sort()),
        [
          ['m1', 'm2'],
          ['m2', 'm3'],
          ['m1', 'm3'],
        ],
      );
      for (const p of all) assert.ok(p.a < p.b);
    });

    it('lists flagged memories newest first, page by page, and reads one by id in its project', async () => {
      const first = await flaggedMemories(db.read, 'p', undefined, undefined, 1);
      assert.deepEqual(
        first.map((f) => name(f.memory.id)),
        ['m7'],
      );
      const next = await flaggedMemories(db.read, 'p', 'n', first[0]!.position, 10);
      assert.deepEqual(
        next.map((f) => name(f.memory.id)),
        ['m6'],
      );
      assert.equal(next[0]!.position.at, '2026-01-01T00:00:06.000000Z');
      assert.deepEqual(await flaggedMemories(db.read, 'p', 'other', undefined, 10), []);
      assert.equal(await memoryInProject(db.read, 'p', id.m5), undefined);
      assert.equal((await memoryInProject(db.read, 'q', id.m5))?.content, ROWS.m5.content);
    });
  });
}
