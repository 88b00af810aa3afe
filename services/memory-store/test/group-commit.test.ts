import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { migrateLatest } from '@engram/db';
import { eventsMigrations, uuidv7, type NewAuditEvent } from '@engram/events';
import { EngramMetrics } from '@engram/telemetry';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';
import { memoryStoreMigrations } from '../migrations/index.ts';
import { contentKey } from '../src/domain/content-key.ts';
import type { Draft } from '../src/domain/memory.ts';
import { KnexMemoryRepository } from '../src/storage/memory-repository.ts';

type Write = Parameters<KnexMemoryRepository['insertAlone']>;

function write(content: string, over: Partial<Draft> = {}): Write {
  const id = uuidv7();
  const draft: Draft = {
    namespace: 'default',
    agent_id: 'writer',
    content,
    memory_type: 'semantic',
    scope: 'agent-private',
    trust_level: 'standard',
    metadata: {},
    content_flags: [],
    shared_with: [],
    session_id: null,
    sequence_number: null,
    entity_id: null,
    error_pattern: null,
    source_trajectory_id: null,
    provenance: {
      channel: 'api',
      kind: 'direct',
      agent_id: 'writer',
      api_key_id: 'key-1',
      source_run_id: null,
      interaction_id: null,
      depth: 0,
      verdict: { action: 'allow' },
      taint: [],
      policy_version: 'test',
    },
    ...over,
  };
  const embedding = Array.from({ length: 8 }, (_, i) => Math.cos(content.length + i));
  const created: NewAuditEvent = {
    eventType: 'MEMORY_CREATED',
    projectId: 'default',
    agentId: draft.agent_id,
    memoryId: id,
    apiKeyId: 'key-1',
    details: { scope: draft.scope },
  };
  const input = {
    id,
    projectId: 'default',
    draft,
    key: contentKey(content),
    integrityHash: `v2:test-${id}`,
    provenanceSignature: `sig-${id}`,
    embedding,
  };
  return [input, created];
}

for (const engine of ENGINES) {
  describe(`memory-store group commit of lone writes (${engine})`, function () {
    this.timeout(120_000);
    let store: EngineDatabase;
    let metrics: EngramMetrics;
    let repo: KnexMemoryRepository;
    let commits = 0;

    before(async () => {
      store = await openEngineDatabase(engine, { poolMax: 4 });
      for (const set of [eventsMigrations, memoryStoreMigrations]) await migrateLatest(store.db, set);
      await store.db
        .knex('projects')
        .insert({ project_id: 'default', name: 'default' })
        .onConflict()
        .ignore();
      metrics = new EngramMetrics(new Registry());
      repo = new KnexMemoryRepository(store.db, () => commits++, metrics);
    });
    after(async () => {
      await store?.close();
    });

    async function groups(): Promise<{ count: number; sum: number; alone: number }> {
      const m = await metrics.registry.getSingleMetric('engram_db_group_commit_writes')!.get();
      const value = (name: string, le?: number) =>
        m.values.find(
          (v) =>
            (v as { metricName?: string }).metricName === name && (le === undefined || v.labels.le === le),
        )?.value ?? 0;
      return {
        count: value('engram_db_group_commit_writes_count'),
        sum: value('engram_db_group_commit_writes_sum'),
        alone: value('engram_db_group_commit_writes_bucket', 1),
      };
    }

    it('stores each of 60 concurrent writes once, with its provenance and event, in fewer statements', async () => {
      const distinct = Array.from(
        { length: 45 },
        (_, i) => `Group fact ${i}: the cache of shard ${i} warms at boot.`,
      );
      // 15 of them twice: a duplicate may share the statement of its twin or come in a later one.
      const contents = [...distinct, ...distinct.slice(0, 15)];
      const writes = contents.map((c) => write(c));
      const before = await groups();
      const answers = await Promise.all(writes.map((w) => repo.insertAlone(...w)));
      const after = await groups();

      const created = writes.filter((_, i) => answers[i]);
      assert.equal(created.length, distinct.length, 'exactly one write per content is created');
      for (const c of distinct) {
        assert.equal(
          contents.filter((x, i) => x === c && answers[i]).length,
          1,
          `one creating write of "${c.slice(0, 14)}"`,
        );
      }
      const ids = created.map(([input]) => input.id);
      const k = store.db.knex;
      const count = async (sql: string, of: string[] = ids) =>
        Number((await k.raw<{ rows: { n: string | number }[] }>(sql, [of])).rows[0]!.n);
      assert.equal(await count('select count(*) as n from memories where id = any(?::uuid[])'), ids.length);
      assert.equal(
        await count('select count(*) as n from memory_provenance where memory_id = any(?::uuid[])'),
        ids.length,
        'each created memory has its provenance row',
      );
      assert.equal(
        await count(
          `select count(*) as n from audit_events where event_type = 'MEMORY_CREATED' and memory_id = any(?::text[])`,
        ),
        ids.length,
        'each created memory has its MEMORY_CREATED event',
      );
      const skipped = writes.filter((_, i) => !answers[i]).map(([input]) => input.id);
      assert.equal(
        await count('select count(*) as n from audit_events where memory_id = any(?::text[])', skipped),
        0,
        'a write that found its twin wrote no event',
      );
      // The lexical index counted each created memory once (its trigger ran once per statement).
      assert.equal(
        await count(
          'select count(distinct memory_id) as n from memory_postings where memory_id = any(?::uuid[])',
        ),
        ids.length,
      );
      assert.equal(after.sum - before.sum, writes.length, 'every write went through a group');
      assert.ok(
        after.count - before.count < writes.length,
        `writes shared statements: ${after.count - before.count} groups for ${writes.length} writes`,
      );
      assert.ok(commits > 0);
    });

    it('fails only the write at fault when its group fails, and stores the others', async () => {
      const lead = write('A lone write that keeps the store busy for the next ones.');
      const good = Array.from({ length: 5 }, (_, i) =>
        write(`Write ${i} of a group with one bad row in it.`),
      );
      // A scope the table's check constraint refuses: the group's statement fails as a whole.
      const bad = write('This row breaks the memories_scope_check constraint.', { scope: 'nowhere' });
      const [first, ...rest] = await Promise.allSettled([
        repo.insertAlone(...lead),
        ...good.map((w) => repo.insertAlone(...w)),
        repo.insertAlone(...bad),
      ]);
      assert.deepEqual(first, { status: 'fulfilled', value: true });
      const outcomes = rest.map((r) => r.status);
      assert.deepEqual(outcomes, [
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
      ]);
      assert.ok(rest.slice(0, 5).every((r) => r.status === 'fulfilled' && r.value === true));
      const reason = (rest[5] as PromiseRejectedResult).reason as { code?: string };
      assert.equal(reason.code, '23514', 'the bad row fails with its own check violation');
      const stored = await store.db
        .knex('memories')
        .whereIn(
          'id',
          good.map(([input]) => input.id),
        )
        .count<{ n: string | number }[]>('* as n');
      assert.equal(Number(stored[0]!.n), good.length);
      const none = await store.db
        .knex('memories')
        .where('id', bad[0].id)
        .count<{ n: string | number }[]>('* as n');
      assert.equal(Number(none[0]!.n), 0);
    });
  });
}
