/**
 * `make bench-lexical-scale`: what the lexical channel and hybrid queries cost on a large project
 * (PostgreSQL, the synthetic corpus of `make bench`). For each size: p50 and p95 of query and
 * hybrid_query through the gateway at 1 client, the lexical channel's own latency (called directly),
 * how many of its queries needed more than one round to prove their top k exact, and the overlap of
 * its top 10 with the exhaustive one (every visible row holding a term scored), which exact pruning
 * must keep at 100%. CPU per query: this process (the whole suite and the load generator) and the
 * PostgreSQL backends of the bench database.
 * Options (environment):
 *   BENCH_SIZES=100000        sizes, loaded in increasing order into one database
 *   BENCH_QUERIES=200         queries per measurement
 *   BENCH_OVERLAP=50          queries compared with the exhaustive channel (0: skip; slow at a million rows)
 *   BENCH_HYBRID=1            0: the lexical channel alone (no gateway queries, no HNSW index), for
 *                             sizes whose index build does not fit the time
 *   BENCH_BULK=1              0: load through the write-time lexical triggers instead of in bulk
 *   BENCH_BULK_CHECK=2000     memories loaded both ways first, to check that the bulk path builds
 *                             the same index as the triggers (0: skip)
 *   BENCH_MAINTENANCE_WORK_MEM=2GB  for the index builds after the load
 *   BENCH_LEXICAL_EXACT=0     1: the suite and the lexical measurements read until exact (LEXICAL_EXACT=true)
 *                             instead of the default one bounded round
 */
import { loadavg } from 'node:os';
import knexFactory, { type Knex } from 'knex';
import { lexicalSearch, lexicalSearchRounds } from '@engram/memories';
import { HNSW_INDEX_NAME } from '@engram/db';
import { bulkLoad, BENCH_NAMESPACE } from './retrieval/bulk-load.ts';
import { queryText } from './retrieval/corpus.ts';
import { CpuMeter } from './retrieval/cpu.ts';
import { ok } from './retrieval/scenarios.ts';
import { percentile, runLoad } from './retrieval/stats.ts';
import { BENCH_ENV } from './retrieval/targets.ts';
import { startTestEngram } from '@engram/all-in-one/testing';

const env = process.env;
const log = (s: string) => process.stdout.write(s + '\n');
const sizes = (env.BENCH_SIZES ?? '100000').split(',').map(Number);
const QUERIES = Number(env.BENCH_QUERIES ?? 200);
const hybrid = env.BENCH_HYBRID !== '0';
const bulk = env.BENCH_BULK !== '0';
const bulkCheck = Number(env.BENCH_BULK_CHECK ?? 2000);
const maintenanceWorkMem = env.BENCH_MAINTENANCE_WORK_MEM ?? '2GB';
const exactMode = env.BENCH_LEXICAL_EXACT === '1';
/** The rounds a lexical query may take, as the suite is configured (LEXICAL_EXACT). */
const maxRounds = exactMode ? Infinity : 1;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

/** The lexical index, independent of memory ids and counter shards: what a reader's scores depend on. */
async function lexicalIndex(knex: Knex): Promise<string[]> {
  const r = await knex.raw<{ rows: { k: string }[] }>(`
    select concat_ws('|', m.content_key, p.term, p.tf, p.dl, p.impact) as k
      from memory_postings p join memories m on m.id = p.memory_id
    union all
    select concat_ws('|', namespace, part, term, sum(df)) from lexical_df
     group by namespace, part, term having sum(df) <> 0
    union all
    select concat_ws('|', namespace, part, sum(n), sum(total_len)) from lexical_docs
     group by namespace, part having sum(n) <> 0
    order by 1`);
  return r.rows.map((x) => x.k);
}

/** Loads `n` memories through the triggers, then the same in bulk, and fails unless both index them alike. */
async function checkBulkPath(knex: Knex, integrityKey: string, n: number): Promise<void> {
  const indexed: string[][] = [];
  for (const lexicalInBulk of [false, true]) {
    await bulkLoad(knex, { integrityKey, from: 0, to: n, rebuildIndex: false, lexicalInBulk, log: () => {} });
    indexed.push(await lexicalIndex(knex));
    // Deleted through the triggers, which take the statistics back to nothing.
    await knex('memories').where('namespace', BENCH_NAMESPACE).delete();
  }
  const [triggers, inBulk] = indexed as [string[], string[]];
  const rest = await lexicalIndex(knex);
  if (triggers.length === 0 || triggers.join('\n') !== inBulk.join('\n') || rest.length !== 0) {
    throw new Error(
      `the bulk path indexed ${inBulk.length} entries, the triggers ${triggers.length}, and they differ (${rest.length} left after deletes)`,
    );
  }
  log(
    `bulk path check: ${n.toLocaleString('en')} memories, ${triggers.length.toLocaleString('en')} postings, df and docs entries identical to the triggers'`,
  );
}

async function main(): Promise<void> {
  const t = await startTestEngram('postgres', {
    ...BENCH_ENV,
    DATABASE_POOL_MAX: '8',
    LEXICAL_EXACT: String(exactMode),
  });
  // Its own connection: the suite's pool has a statement timeout an index build outlives.
  const knex = knexFactory({ client: 'pg', connection: t.database!.url, pool: { min: 0, max: 2 } });
  // The suite runs in this process: its CPU is the load generator's entry.
  const meter = new CpuMeter(new Map(), { databases: [new URL(t.database!.url).pathname.slice(1)] });
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
  log(`bench-lexical-scale ${new Date().toISOString()}, load average ${load()} (1 / 5 / 15 min)`);
  try {
    if (bulk && bulkCheck > 0) await checkBulkPath(knex, t.integrityKey, bulkCheck);
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
        lexicalInBulk: bulk,
        maintenanceWorkMem,
        log,
      });
      loaded = size;
      // As autovacuum would leave a store at rest: statistics, and the visibility map for index-only scans.
      await knex.raw('vacuum (analyze) memories, memory_postings, lexical_df, lexical_docs');
      const seconds = ((performance.now() - t0) / 1000).toFixed(0);
      const postings = await knex('memory_postings').count<{ count: string }[]>('* as count');
      const cpu = process.cpuUsage(c0);
      log(
        `${size.toLocaleString('en')} memories loaded (${bulk ? 'in bulk' : 'through the triggers'}) in ${seconds} s (this process ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU), ${Number(postings[0]?.count).toLocaleString('en')} postings; load average ${load()}`,
      );
      // Overlap of the channel's top 10 with the exhaustive one.
      let overlap = 0;
      let same = 0;
      const n = Math.min(Number(env.BENCH_OVERLAP ?? 50), QUERIES);
      for (let i = 0; i < n; i++) {
        const top = (await lexicalSearch(knex, q(i, size), 10, { maxRounds })).map((m) => m.id);
        const full = (await lexicalSearch(knex, q(i, size), 10, { perTerm: Infinity })).map((m) => m.id);
        overlap += full.filter((id) => top.includes(id)).length / Math.max(1, full.length);
        if (top.join() === full.join()) same++;
      }
      // The lexical channel alone, from this process, with the CPU of the bench database's backends.
      const lexWall: number[] = [];
      const rounds = new Map<number, number>();
      let proven = 0;
      const [, lexCpu] = await meter.measure(
        async () => {
          for (let i = 0; i < QUERIES; i++) {
            const w0 = performance.now();
            const r = await lexicalSearchRounds(knex, q(i + 1000, size), 20, { maxRounds });
            lexWall.push(performance.now() - w0);
            if (r.exact) proven++;
            rounds.set(r.rounds, (rounds.get(r.rounds) ?? 0) + 1);
          }
        },
        () => QUERIES,
      );
      lexWall.sort((a, b) => a - b);
      const perRound = [...rounds.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([r, c]) => `${r} round${r > 1 ? 's' : ''}: ${c}`)
        .join(', ');
      log(
        `  lexical channel alone (top 20, ${QUERIES} queries): p50 ${percentile(lexWall, 50).toFixed(1)} ms, p95 ${percentile(lexWall, 95).toFixed(1)} ms wall, PostgreSQL CPU ${lexCpu.postgres!.toFixed(1)} ms per query; ${perRound}; proven exact ${proven} of ${QUERIES} (${exactMode ? 'LEXICAL_EXACT=true' : 'one bounded round, the default'})`,
      );
      log(
        `  top 10 = exhaustive top 10: ${n > 0 ? `${((overlap / n) * 100).toFixed(1)}% of ids, ${same} of ${n} queries in the same order` : '(not measured)'}; load average ${load()}`,
      );
      if (hybrid) {
        const body = (i: number) => ({
          query: queryText((i * 7919) % size, i),
          namespace: BENCH_NAMESPACE,
          top_k: 10,
        });
        await runLoad(1, 50, (i) => ok(reader, '/memories/query', body(i)));
        await runLoad(1, 50, (i) => ok(reader, '/memories/hybrid_query', body(i)));
        const [vec, vecCpu] = await meter.measure(
          () => runLoad(1, QUERIES, (i) => ok(reader, '/memories/query', body(i + 5000))),
          () => QUERIES,
        );
        const [hyb, hybCpu] = await meter.measure(
          () => runLoad(1, QUERIES, (i) => ok(reader, '/memories/hybrid_query', body(i + 5000))),
          () => QUERIES,
        );
        const cpu = (k: string) => `${vecCpu[k]!.toFixed(2)} / ${hybCpu[k]!.toFixed(2)} ms`;
        log(
          `  query p50 ${vec.p50.toFixed(1)} ms (p95 ${vec.p95.toFixed(1)}), hybrid_query p50 ${hyb.p50.toFixed(1)} ms (p95 ${hyb.p95.toFixed(1)}), hybrid / query ${(hyb.p50 / vec.p50).toFixed(2)}; ` +
            `CPU per query (query / hybrid): suite process ${cpu('load generator')}, PostgreSQL ${cpu('postgres')}; errors ${vec.errors + hyb.errors}; load average ${load()}`,
        );
      }
    }
  } finally {
    await knex.destroy();
    await t.stop();
  }
}

await main();
