/**
 * `make bench`: writes and reads through the gateway, on PGlite (the embedded process, `make start`)
 * and on PostgreSQL with the services as separate processes. Writes the bench:retrieval section of
 * docs/benchmarks.md. Options (environment):
 *   BENCH_1M=1             also 1,000,000 memories on PostgreSQL (about 25 more minutes: 3 of inserts,
 *                          15 of index build; give PostgreSQL shared_buffers for the 2 GB index)
 *   BENCH_PGLITE_100K=1    also 100,000 memories on PGlite (slow: WASM index build)
 *   BENCH_ENGINES=postgres,pglite   which engines to run (default both)
 *   BENCH_DOCS=0           print the report instead of writing docs/benchmarks.md
 *   BENCH_SIZES=2000,5000  read-set sizes for both engines instead of the defaults (quick checks)
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { HNSW_INDEX_NAME, HNSW_INDEX_PARAMS } from '@engram/db';
import { efSearch } from '@engram/memories';
import type { ApiClient } from '@engram/testing';
import { bulkLoad } from './retrieval/bulk-load.ts';
import { CpuMeter, cpuLine, type CpuSnapshot } from './retrieval/cpu.ts';
import { postgresCeiling, type Ceiling } from './retrieval/pg-ceiling.ts';
import { hnswRecall, type Recall } from './retrieval/recall.ts';
import { row, TABLE_HEAD, writeSection } from './retrieval/report.ts';
import type { LoadResult } from './retrieval/stats.ts';
import {
  BATCH_ITEMS,
  benchAdd,
  benchQuality,
  benchQueries,
  benchWrites,
  type QualityResults,
  type QueryResults,
  type WriteResults,
} from './retrieval/scenarios.ts';
import { EmbeddedTarget, startPostgresSuite } from './retrieval/targets.ts';

const log = (s: string) => process.stdout.write(s + '\n');
const env = process.env;
const engines = (env.BENCH_ENGINES ?? 'postgres,pglite').split(',');
const custom = env.BENCH_SIZES?.split(',').map(Number);

interface EngineResults {
  readonly writes: WriteResults;
  readonly quality: QualityResults;
  readonly reads: {
    size: number;
    q: QueryResults;
    recall: Recall;
    recall400: Recall;
    /** PostgreSQL alone (pgbench) with the service's vector SQL; PostgreSQL only. */
    ceiling?: Ceiling[] | undefined;
  }[];
  /** add at 32 clients with the HNSW index dropped: how much of a write the index costs (PostgreSQL only). */
  readonly withoutIndex?: { add1: LoadResult; add32: LoadResult; cpu: CpuSnapshot | undefined } | undefined;
}

const showRecall = (r: Recall) => `${r.ids.toFixed(3)} / ${r.distance.toFixed(3)}`;

function writesTable(w: WriteResults): string[] {
  return [
    ...TABLE_HEAD,
    row('add', 1, w.add1, 'writes/s'),
    row('add', 32, w.add32, 'writes/s'),
    row(`add_batch (${BATCH_ITEMS} items)`, 1, w.batch1, 'memories/s'),
    row(`add_batch (${BATCH_ITEMS} items)`, 32, w.batch32, 'memories/s'),
  ];
}

function readsTable(reads: EngineResults['reads']): string[] {
  const out = [
    ...TABLE_HEAD.map((l, i) => (i === 0 ? l.replace('| operation', '| memories | operation') : l + '---|')),
  ];
  for (const r of reads) {
    const n = r.size.toLocaleString('en');
    out.push(
      `| ${n} ${row('query', 1, r.q.query1, 'q/s')}`,
      `| ${n} ${row('query', 16, r.q.query16, 'q/s')}`,
      `| ${n} ${row('hybrid_query', 1, r.q.hybrid1, 'q/s')}`,
      `| ${n} ${row('hybrid_query', 16, r.q.hybrid16, 'q/s')}`,
    );
  }
  return out;
}

function qualityTable(q: QualityResults): string[] {
  return [
    '| path | recall@1 | recall@3 | recall@5 |',
    '|---|---|---|---|',
    ...Object.entries(q.recall).map(
      ([path, r]) => `| ${path} | ${r[1]!.toFixed(2)} | ${r[3]!.toFixed(2)} | ${r[5]!.toFixed(2)} |`,
    ),
  ];
}

async function readerKey(admin: ApiClient): Promise<ApiClient> {
  return admin.createKey({ trust_level: 'internal', bound_agent_id: 'agent-3', name: 'bench-reader' });
}

/** The PostgreSQL server's version and memory settings, for the report (set by onPostgres). */
let pgServer = '';

async function onPostgres(sizes: number[]): Promise<EngineResults> {
  const ps = await startPostgresSuite('bench');
  const { db, suite: d, knex } = ps;
  pgServer = ps.server;
  const meter = new CpuMeter(new Map([...d.processes].map(([name, p]) => [name, p.child.pid ?? -1])));
  try {
    log('postgres: writes');
    const writes = await benchWrites(d.admin, 1, meter);
    log('postgres: add without the HNSW index (diagnostic)');
    await knex.raw(`drop index if exists ${HNSW_INDEX_NAME}`);
    const [add1] = await benchAdd(d.admin, 1, 300);
    const [add32, cpu] = await benchAdd(d.admin, 32, 2000, meter);
    const withoutIndex = { add1, add32, cpu };
    log(`  ${add32.perSecond.toFixed(0)} writes/s (with the index: ${writes.add32.perSecond.toFixed(0)})`);
    log('postgres: conversational quality');
    const quality = await benchQuality(d.admin);
    const reader = await readerKey(d.admin);
    const reads: EngineResults['reads'] = [];
    let loaded = 0;
    for (const size of sizes) {
      log(`postgres: loading ${size.toLocaleString('en')} memories`);
      // Rebuilds the index (dropped above for the diagnostic) in memory: about 3 kB per row.
      const maintenanceWorkMem = `${Math.max(512, Math.ceil((size * 3) / 1000))}MB`;
      await bulkLoad(knex, {
        integrityKey: d.integrityKey,
        from: loaded,
        to: size,
        rebuildIndex: true,
        maintenanceWorkMem,
        log,
      });
      loaded = size;
      log(`postgres: queries at ${size.toLocaleString('en')}`);
      const q = await benchQueries(reader, size, meter);
      // Without trust ranking the service asks for max(2 * top_k, 20) rows on its first page (vector-search.ts).
      const recall = await hnswRecall(knex, size, efSearch(20));
      const recall400 = await hnswRecall(knex, size, 400);
      log(`postgres: PostgreSQL alone at ${size.toLocaleString('en')} (pgbench)`);
      const ceiling = await postgresCeiling(knex, db.url, size, efSearch(20), [1, 2, 4, 16]);
      reads.push({ size, q, recall, recall400, ceiling });
      log(
        `  query p50 ${q.query1.p50.toFixed(1)} ms, ${q.query16.perSecond.toFixed(0)} q/s; recall@10 ${showRecall(recall)}; PostgreSQL alone ${ceiling?.map((c) => `${c.perSecond.toFixed(0)} q/s at ${c.clients}`).join(', ') ?? 'not measured (no pgbench)'}`,
      );
    }
    return { writes, quality, reads, withoutIndex };
  } finally {
    await ps.stop();
  }
}

async function onPglite(sizes: number[]): Promise<EngineResults> {
  const t = new EmbeddedTarget();
  try {
    let admin = await t.start();
    log('pglite: writes');
    const writes = await benchWrites(admin);
    log('pglite: conversational quality');
    const quality = await benchQuality(admin);
    await t.stop();
    const reads: EngineResults['reads'] = [];
    let loaded = 0;
    for (const size of sizes) {
      log(`pglite: loading ${size.toLocaleString('en')} memories`);
      let recall: Recall = { ids: NaN, distance: NaN };
      let recall400: Recall = { ids: NaN, distance: NaN };
      await t.withDatabase(async (knex) => {
        await bulkLoad(knex, {
          integrityKey: t.integrityKey,
          from: loaded,
          to: size,
          rebuildIndex: true,
          maintenanceWorkMem: '256MB',
          log,
        });
        recall = await hnswRecall(knex, size, efSearch(20));
        recall400 = await hnswRecall(knex, size, 400);
      });
      loaded = size;
      admin = await t.start();
      log(`pglite: queries at ${size.toLocaleString('en')}`);
      const q = await benchQueries(await readerKey(admin), size);
      await t.stop();
      reads.push({ size, q, recall, recall400 });
      log(
        `  query p50 ${q.query1.p50.toFixed(1)} ms, ${q.query16.perSecond.toFixed(0)} q/s; recall@10 ${showRecall(recall)}`,
      );
    }
    return { writes, quality, reads };
  } finally {
    await t.stop();
    t.remove();
  }
}

/** Where the CPU went, and what PostgreSQL alone reaches (PostgreSQL runs only). */
function costLines(r: EngineResults): string[] {
  const out: string[] = [];
  const ceilings = r.reads.filter((x) => x.ceiling);
  if (ceilings.length > 0) {
    out.push(
      `PostgreSQL alone: the service's vector SQL (same columns, filters and visibility, 20 rows, ef_search ${efSearch(20)}) run by pgbench with no Engram process in the path, 10 s per point: ${ceilings
        .map(
          (x) =>
            `at ${x.size.toLocaleString('en')}, ${x
              .ceiling!.map(
                (c) =>
                  `${c.clients} client${c.clients > 1 ? 's' : ''} ${c.perSecond.toFixed(0)} q/s (mean ${c.meanMs.toFixed(1)} ms)`,
              )
              .join(', ')}`,
        )
        .join('; ')}. Through the gateway a query can reach at most this rate on the same cores.`,
      '',
    );
  }
  const cpu: string[] = [];
  if (r.writes.add32Cpu) cpu.push(`- add at 32 clients: ${cpuLine(r.writes.add32Cpu)}`);
  if (r.withoutIndex?.cpu) {
    cpu.push(
      `- add with the HNSW index dropped (a diagnostic, not a configuration): p50 ${r.withoutIndex.add1.p50.toFixed(1)} ms at 1 client (${r.writes.add1.p50.toFixed(1)} with the index); at 32 clients ${r.withoutIndex.add32.perSecond.toFixed(0)} writes/s, ${cpuLine(r.withoutIndex.cpu)}`,
    );
  }
  for (const x of r.reads) {
    if (x.q.query16Cpu)
      cpu.push(`- query at 16 clients, ${x.size.toLocaleString('en')} memories: ${cpuLine(x.q.query16Cpu)}`);
  }
  if (cpu.length > 0) {
    out.push(
      'CPU milliseconds per operation by process (from /proc; two cores give 2,000 ms per second):',
      '',
      ...cpu,
      '',
    );
  }
  return out;
}

function section(name: string, r: EngineResults): string[] {
  const first = r.reads[0];
  const last = r.reads[r.reads.length - 1];
  const growth =
    first && last && last !== first
      ? `query p50 grows ${(last.q.query1.p50 / first.q.query1.p50).toFixed(2)}x from ${first.size.toLocaleString('en')} to ${last.size.toLocaleString('en')} memories (hybrid ${(last.q.hybrid1.p50 / first.q.hybrid1.p50).toFixed(2)}x).`
      : '';
  const at10k = r.reads.find((x) => x.size === 10_000);
  const at100k = r.reads.find((x) => x.size === 100_000);
  const at1m = r.reads.find((x) => x.size === 1_000_000);
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  const goals = [
    `Goals: write p50 <= 5 ms (${r.writes.add1.p50.toFixed(1)} ms at 1 client: ${met(r.writes.add1.p50 <= 5)});`,
    `>= 800 writes/s at 32 clients (${r.writes.add32.perSecond.toFixed(0)} add, ${r.writes.batch32.perSecond.toFixed(0)} via add_batch: ${met(r.writes.add32.perSecond >= 800)});`,
    at100k
      ? `query p50 <= 10 ms and >= 500 q/s at 100k (${at100k.q.query1.p50.toFixed(1)} ms, ${at100k.q.query16.perSecond.toFixed(0)} q/s: ${met(at100k.q.query1.p50 <= 10 && at100k.q.query16.perSecond >= 500)}${at100k.ceiling ? `; PostgreSQL alone reaches ${Math.max(...at100k.ceiling.map((c) => c.perSecond)).toFixed(0)} q/s` : ''});`
      : 'query at 100k: not measured;',
    at10k && at1m
      ? `query cost at most doubling from 10k to 1M (p50 ${at10k.q.query1.p50.toFixed(1)} -> ${at1m.q.query1.p50.toFixed(1)} ms, ${(at1m.q.query1.p50 / at10k.q.query1.p50).toFixed(2)}x: ${met(at1m.q.query1.p50 <= 2 * at10k.q.query1.p50)});`
      : '',
    `HNSW recall@10 >= 0.95 (${met(r.reads.every((x) => x.recall.distance >= 0.95))}).`,
  ]
    .filter((x) => x !== '')
    .join(' ');
  return [
    `### ${name}`,
    '',
    goals,
    '',
    'Writes (each add is screened, embedded, signed and stored with provenance and an audit event):',
    '',
    ...writesTable(r.writes),
    '',
    'Reads (top_k 10, an internal agent-bound key, so visibility is part of every query):',
    '',
    ...readsTable(r.reads),
    '',
    `HNSW recall@10 against exact search on the same rows (100 queries, iterative scan, index m ${HNSW_INDEX_PARAMS.m} / ef_construction ${HNSW_INDEX_PARAMS.efConstruction}; ids in the exact top 10 / rows within the exact 10th distance): ${r.reads
      .map(
        (x) =>
          `${showRecall(x.recall)} at ${x.size.toLocaleString('en')} with the service's ef_search ${efSearch(20)} (${showRecall(x.recall400)} with ef_search 400)`,
      )
      .join('; ')}. ${growth}`,
    '',
    ...costLines(r),
    `Conversational memory set (${r.quality.questions} questions over a ${28}-turn dialogue, evidence recall, hash embedder):`,
    '',
    ...qualityTable(r.quality),
    '',
  ];
}

async function main(): Promise<void> {
  const started = new Date();
  const results: [string, EngineResults][] = [];
  if (engines.includes('postgres')) {
    const sizes = custom ?? [10_000, 100_000, ...(env.BENCH_1M === '1' ? [1_000_000] : [])];
    results.push(['PostgreSQL 15 + pgvector 0.8, six processes (startDistributed)', await onPostgres(sizes)]);
  }
  if (engines.includes('pglite')) {
    const sizes = custom ?? [10_000, ...(env.BENCH_PGLITE_100K === '1' ? [100_000] : [])];
    results.push(['PGlite, the embedded process (`make start`)', await onPglite(sizes)]);
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const body = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB,`,
    `Node ${process.version}, with \`make bench\` (\`node --import tsx scripts/bench/retrieval.ts\`${env.BENCH_1M === '1' ? ', BENCH_1M=1' : ''}).`,
    ...(pgServer ? [pgServer] : []),
    'Everything goes through the REST gateway over HTTP/1.1 keep-alive; the load generator (node:http) runs on the same',
    'two cores as the services. Embeddings: the built-in `hash` embedder (384 dimensions). Read sets are',
    'synthetic engineering memories (scripts/bench/retrieval/corpus.ts) bulk-loaded with valid signatures.',
    `Load average when the run ended: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min; other work on the machine competes with the measurement when above 2).`,
    '',
    ...results.flatMap(([name, r]) => section(name, r)),
  ].join('\n');
  if (env.BENCH_DOCS === '0') log(body);
  else {
    writeSection(fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url)), body);
    log(body);
    log('\nwritten to docs/benchmarks.md');
  }
}

await main();
