/**
 * `make bench-lexical-scale`: what the lexical channel and hybrid queries cost on a large project
 * (PostgreSQL, the synthetic corpus of `make bench`, bulk-loaded through the same triggers that
 * keep the BM25 index on every write). For each size: p50 of query and hybrid_query through the
 * gateway at 1 client, the lexical channel's own latency (its one statement, called directly) and the overlap
 * of the pruned top 10 with the exhaustive one (every visible row holding a term scored).
 * Options (environment):
 *   BENCH_SIZES=100000        sizes, loaded in increasing order into one database
 *   BENCH_QUERIES=200         queries per measurement
 *   BENCH_OVERLAP=1           0: skip the pruned-vs-exhaustive comparison (slow at a million rows)
 *   BENCH_HYBRID=1            0: the lexical channel alone (no gateway queries, no HNSW index), for
 *                             sizes whose index build does not fit the time
 */
import { loadavg } from 'node:os';
import knexFactory from 'knex';
import { lexicalSearch } from '@engram/memories';
import { HNSW_INDEX_NAME } from '@engram/db';
import { bulkLoad, BENCH_NAMESPACE } from './retrieval/bulk-load.ts';
import { queryText } from './retrieval/corpus.ts';
import { ok } from './retrieval/scenarios.ts';
import { runLoad } from './retrieval/stats.ts';
import { startTestEngram } from '@engram/all-in-one/testing';

const env = process.env;
const log = (s: string) => process.stdout.write(s + '\n');
const sizes = (env.BENCH_SIZES ?? '100000').split(',').map(Number);
const QUERIES = Number(env.BENCH_QUERIES ?? 200);
const hybrid = env.BENCH_HYBRID !== '0';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const t = await startTestEngram('postgres', {
    RATE_LIMIT_PROJECT_PER_MINUTE: '100000000',
    RATE_LIMIT_AGENT_PER_MINUTE: '100000000',
    EMBEDDING_PROVIDER: 'hash',
    DATABASE_POOL_MAX: '8',
  });
  // Its own connection: the suite's pool has a statement timeout an index build outlives.
  const knex = knexFactory({ client: 'pg', connection: t.database!.url, pool: { min: 0, max: 2 } });
  const reader = await t.admin.createKey({
    trust_level: 'internal',
    bound_agent_id: 'agent-3',
    name: 'bench',
  });
  const q = (i: number, size: number) => ({
    reader: { projectId: 'default', agentId: 'agent-3', seesAll: false },
    namespace: BENCH_NAMESPACE,
    vector: Array.from({ length: 384 }, (_, j) => (j === 0 ? 1 : 0)),
    text: queryText((i * 7919) % size, i),
    memoryTypes: [],
    scopes: [],
    authors: [],
  });
  try {
    let loaded = 0;
    for (const size of sizes) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      // Without hybrid queries the HNSW index is not needed: dropped, and not rebuilt.
      if (!hybrid) await knex.raw(`drop index if exists ${HNSW_INDEX_NAME}`);
      await bulkLoad(knex, {
        integrityKey: t.integrityKey,
        from: loaded,
        to: size,
        rebuildIndex: hybrid,
        maintenanceWorkMem: '1GB',
        log,
      });
      loaded = size;
      await knex.raw('analyze memory_postings; analyze lexical_df; analyze lexical_docs');
      const load = ((performance.now() - t0) / 1000).toFixed(0);
      const postings = await knex('memory_postings').count<{ count: string }[]>('* as count');
      log(
        `${size.toLocaleString('en')} memories loaded in ${load} s (this process ${((process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1e6).toFixed(0)} s CPU), ${Number(postings[0]?.count).toLocaleString('en')} postings`,
      );
      // Overlap of the pruned top 10 with the exhaustive one.
      let overlap = 0;
      const n = env.BENCH_OVERLAP === '0' ? 0 : Math.min(50, QUERIES);
      for (let i = 0; i < n; i++) {
        const pruned = new Set((await lexicalSearch(knex, q(i, size), 10)).map((m) => m.id));
        const full = await lexicalSearch(knex, q(i, size), 10, { perTerm: Infinity });
        overlap += full.filter((m) => pruned.has(m.id)).length / Math.max(1, full.length);
      }
      // The lexical channel alone (one statement), from this process.
      const lexWall: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const w0 = performance.now();
        await lexicalSearch(knex, q(i + 1000, size), 20);
        lexWall.push(performance.now() - w0);
      }
      log(
        `  lexical channel alone: p50 ${median(lexWall).toFixed(1)} ms wall (top 20, ${QUERIES} queries); pruned top 10 = exhaustive top 10 for ${n > 0 ? ((overlap / n) * 100).toFixed(1) : '(not measured)'}% of ids; load average ${loadavg()[0]!.toFixed(1)}`,
      );
      if (hybrid) {
        const body = (i: number) => ({
          query: queryText((i * 7919) % size, i),
          namespace: BENCH_NAMESPACE,
          top_k: 10,
        });
        await runLoad(1, 50, (i) => ok(reader, '/memories/query', body(i)));
        await runLoad(1, 50, (i) => ok(reader, '/memories/hybrid_query', body(i)));
        const c1 = process.cpuUsage();
        const vec = await runLoad(1, QUERIES, (i) => ok(reader, '/memories/query', body(i + 5000)));
        const c2 = process.cpuUsage();
        const hyb = await runLoad(1, QUERIES, (i) => ok(reader, '/memories/hybrid_query', body(i + 5000)));
        const c3 = process.cpuUsage();
        const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) =>
          (b.user + b.system - a.user - a.system) / 1000 / QUERIES;
        log(
          `  query p50 ${vec.p50.toFixed(1)} ms (p95 ${vec.p95.toFixed(1)}), hybrid_query p50 ${hyb.p50.toFixed(1)} ms (p95 ${hyb.p95.toFixed(1)}); ` +
            `suite-process CPU per query ${cpuMs(c1, c2).toFixed(2)} / ${cpuMs(c2, c3).toFixed(2)} ms; errors ${vec.errors + hyb.errors}; load average ${loadavg()[0]!.toFixed(1)}`,
        );
      }
    }
  } finally {
    await knex.destroy();
    await t.stop();
  }
}

await main();
