/**
 * `make bench-whole-project`: why a query over the whole project (a system key: no visibility
 * filter) cost more than one filtered to an agent, at 50,000 memories and 1536 dimensions (issue 17).
 * Loads a store (memory-store's migrations, the `openai` space pinned at EMBEDDING_DIMENSIONS with its
 * HNSW settings, signed rows with the stand-in's vectors), then runs retrieval-ranking's own vector
 * statement for both readers under EXPLAIN (ANALYZE, BUFFERS) at the pinned ef_search and prints the
 * plans and the median execution time of 20 queries each.
 * Options: BENCH_WP_SIZE=50000, BENCH_WP_DIMS=1536, ENGRAM_TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { migrateLatest, openDatabase } from '@engram/db';
import { eventsMigrations } from '@engram/events';
import { vectorLiteral } from '@engram/embeddings';
import { memoryStoreMigrations, pinEmbeddingSpace } from '@engram/memory-store';
import { nearestQuery } from '@engram/memories';
import { createTestDatabase } from '@engram/testing';
import { BENCH_NAMESPACE, bulkLoad } from './retrieval/bulk-load.ts';
import { benchQueries, corpusVectors, embedTexts, standInModel } from './vectors/corpus-vectors.ts';

const size = Number(process.env.BENCH_WP_SIZE ?? 50_000);
const dims = Number(process.env.BENCH_WP_DIMS ?? 1536);
const log = (s: string) => process.stdout.write(s + '\n');
const geometry = { kind: 'standin' as const, dimensions: dims };

const test = await createTestDatabase('engram_wp');
const db = await openDatabase({ url: test.url, poolMax: 2 });
try {
  for (const set of [eventsMigrations, memoryStoreMigrations]) await migrateLatest(db, set);
  const pinned = await pinEmbeddingSpace(db, {
    provider: 'openai',
    model: standInModel(dims),
    dimensions: dims,
  });
  log(`pinned openai/${standInModel(dims)}/${dims}: ${JSON.stringify(pinned)}`);
  await bulkLoad(db.knex, {
    integrityKey: randomBytes(32).toString('base64url'),
    from: 0,
    to: size,
    rebuildIndex: true,
    maintenanceWorkMem: `${Math.ceil((size * dims * 8) / 1e6)}MB`,
    log,
    vectors: (from, to) => corpusVectors(geometry, from, to),
  });
  const sizes = await db.knex.raw<{ rows: { heap: string; idx: string; sb: string }[] }>(
    `select pg_size_pretty(pg_relation_size('memories')) as heap, pg_size_pretty(pg_relation_size('memories_embedding_hnsw')) as idx, current_setting('shared_buffers') as sb`,
  );
  log(`heap ${sizes.rows[0]!.heap}, HNSW index ${sizes.rows[0]!.idx}, shared_buffers ${sizes.rows[0]!.sb}`);
  const vectors = (await embedTexts(geometry, benchQueries(size, 20, 500))).map((v) =>
    vectorLiteral(Array.from(v)),
  );
  const readers = {
    'whole project (system key)': { projectId: 'default', agentId: 'admin', seesAll: true },
    'agent-bound key': { projectId: 'default', agentId: 'agent-3', seesAll: false },
  };
  for (const [name, reader] of Object.entries(readers)) {
    const times: number[] = [];
    let firstPlan = '';
    for (const [k, v] of vectors.entries()) {
      const q = { reader, namespace: BENCH_NAMESPACE, vector: [], memoryTypes: [], scopes: [], authors: [] };
      const sql = nearestQuery(db.knex, q, db.knex.raw('?::vector', [v]), 20, 0).toQuery();
      const res = await db.knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(
        `explain (analyze, buffers) ${sql}`,
      );
      const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
      if (k === 0) firstPlan = plan;
      times.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
    }
    times.sort((a, b) => a - b);
    log(
      `\n== ${name}: median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms over ${times.length} queries; first plan:\n${firstPlan.replace(/\[[-\d.e,]{200,}\]/g, '[...]')}`,
    );
  }
} finally {
  await db.close();
  await test.drop();
}
