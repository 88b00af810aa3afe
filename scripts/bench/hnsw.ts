/**
 * `make bench-hnsw`: HNSW recall@10 and cost per embedding space, index build and ef_search, on
 * the bench corpus (scripts/bench/retrieval/corpus.ts) embedded by the stand-in server's geometry
 * (what EMBEDDING_PROVIDER=openai gets from scripts/bench's stand-in) and by the `hash` embedder.
 * A plain table (id, vector with storage main), no filter: the index alone. For each size it
 * computes the exact top 10 of 100 queries (sequential scan), then for each index build measures
 * build time, index size and, per ef_search, recall@10 (returned ids within the exact 10th
 * distance), the median PostgreSQL execution time and shared buffers per query (EXPLAIN ANALYZE,
 * BUFFERS). Also halfvec and binary-quantized indexes (with exact re-ranking) of the stand-in.
 * Writes the bench:hnsw section of docs/benchmarks.md. Options (environment):
 *   BENCH_HNSW_SIZES=10000,100000          read-set sizes
 *   BENCH_HNSW_GEOMETRIES=standin-384,standin-1536,hash-384
 *   BENCH_HNSW_BUILDS=16x64,24x200         m x ef_construction of the float index builds
 *   BENCH_HNSW_EF=40,100,200               ef_search values
 *   BENCH_HNSW_QUANTIZED=16x64             the build of the halfvec and binary indexes ('' for none)
 *   BENCH_DOCS=0                            print instead of writing docs/benchmarks.md
 *   ENGRAM_TEST_DATABASE_URL               the PostgreSQL server (a database is created and dropped)
 */
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { vectorLiteral } from '@engram/embeddings';
import { createTestDatabase } from '@engram/testing';
import { writeBenchSection } from './bench-section.ts';
import { median } from './retrieval/stats.ts';
import {
  benchQueries,
  corpusVectors,
  embedTexts,
  geometryName,
  type Geometry,
} from './vectors/corpus-vectors.ts';

const literal = (v: ArrayLike<number>): string => vectorLiteral(Array.from(v));

const env = process.env;
const log = (s: string) => process.stdout.write(s + '\n');
const list = (v: string | undefined, d: string) => (v ?? d).split(',').filter((x) => x !== '');
const sizes = list(env.BENCH_HNSW_SIZES, '10000,100000').map(Number);
const geometries: Geometry[] = list(env.BENCH_HNSW_GEOMETRIES, 'standin-384,standin-1536,hash-384').map(
  (g) => {
    const [kind, dims] = g.split('-');
    return { kind: kind as Geometry['kind'], dimensions: Number(dims) };
  },
);
const parseBuild = (s: string) => {
  const [m, efc] = s.split('x').map(Number);
  return { m: m!, efConstruction: efc! };
};
const builds = list(env.BENCH_HNSW_BUILDS, '16x64,24x200').map(parseBuild);
const efs = list(env.BENCH_HNSW_EF, '40,100,200').map(Number);
const quantized = list(env.BENCH_HNSW_QUANTIZED, '16x64').map(parseBuild);
const QUERIES = 100;
const EXPLAINED = 40;

interface Row {
  geometry: string;
  size: number;
  index: string;
  buildSeconds: number;
  indexMb: number;
  ef: number | string;
  recall: number;
  ms: number;
  buffers: number;
}

async function explain(
  c: pg.Client,
  sql: string,
  params: unknown[],
): Promise<{ ms: number; buffers: number }> {
  const r = await c.query<{ 'QUERY PLAN': [{ 'Execution Time': number; Plan: Record<string, number> }] }>(
    `explain (analyze, buffers, format json) ${sql}`,
    params,
  );
  const top = r.rows[0]!['QUERY PLAN'][0];
  return {
    ms: top['Execution Time'],
    buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
  };
}

async function load(c: pg.Client, g: Geometry, from: number, to: number): Promise<void> {
  const t0 = performance.now();
  for (let s = from; s < to; s += 10_000) {
    const vs = await corpusVectors(g, s, Math.min(to, s + 10_000));
    for (let k = 0; k < vs.length; k += 250) {
      const part = vs.slice(k, k + 250);
      const values = part.map((_, j) => `($${2 * j + 1}::int, $${2 * j + 2}::vector)`).join(',');
      await c.query(
        `insert into items (id, v) values ${values}`,
        part.flatMap((v, j) => [s + k + j, literal(v)]),
      );
    }
  }
  await c.query('analyze items');
  log(`  loaded ${to.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** One kind of index: its DDL and the top-10 statement through it ($1: the query vector text). */
interface IndexKind {
  name: string;
  ddl: (b: { m: number; efConstruction: number }) => string;
  sql: (ef: number) => string;
  efs: number[];
}

function kinds(d: number): { float: IndexKind; half: IndexKind; binary: IndexKind } {
  const topFloat = 'select id, v <=> $1::vector as distance from items order by v <=> $1::vector limit 10';
  return {
    float: {
      name: 'vector',
      ddl: (b) =>
        `create index items_hnsw on items using hnsw (v vector_cosine_ops) with (m = ${b.m}, ef_construction = ${b.efConstruction})`,
      sql: () => topFloat,
      efs,
    },
    half: {
      name: 'halfvec',
      ddl: (b) =>
        `create index items_hnsw on items using hnsw ((v::halfvec(${d})) halfvec_cosine_ops) with (m = ${b.m}, ef_construction = ${b.efConstruction})`,
      sql: () =>
        `select id, v <=> $1::vector as distance from items order by v::halfvec(${d}) <=> $1::vector::halfvec(${d}) limit 10`,
      efs,
    },
    binary: {
      name: 'bit + re-rank',
      ddl: (b) =>
        `create index items_hnsw on items using hnsw ((binary_quantize(v)::bit(${d})) bit_hamming_ops) with (m = ${b.m}, ef_construction = ${b.efConstruction})`,
      // ef candidates by Hamming distance, re-ranked by the exact cosine distance.
      sql: (ef) =>
        `select id, distance from (select id, v <=> $1::vector as distance from items order by binary_quantize(v)::bit(${d}) <~> binary_quantize($1::vector) limit ${ef}) c order by distance limit 10`,
      efs: efs.filter((e) => e >= 40),
    },
  };
}

async function measure(g: Geometry, rows: Row[]): Promise<void> {
  const db = await createTestDatabase('engram_hnsw');
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    await c.query(`create table items (id int primary key, v vector(${g.dimensions}))`);
    await c.query('alter table items alter column v set storage main');
    await c.query(`set maintenance_work_mem = '2GB'`);
    await c.query('set jit = off');
    let loaded = 0;
    for (const size of sizes) {
      log(`${geometryName(g)}: ${size.toLocaleString('en')} rows`);
      await load(c, g, loaded, size);
      loaded = size;
      const queries = (await embedTexts(g, benchQueries(size, QUERIES))).map(literal);
      // Exact answers: a sequential scan and sort.
      await c.query('drop index if exists items_hnsw');
      const exact: { ids: Set<number>; kth: number }[] = [];
      const exactMs: number[] = [];
      for (const [k, q] of queries.entries()) {
        const r = await c.query<{ id: number; distance: number }>(kinds(g.dimensions).float.sql(0), [q]);
        exact.push({
          ids: new Set(r.rows.map((x) => x.id)),
          kth: Number(r.rows[r.rows.length - 1]!.distance),
        });
        if (k < 10) exactMs.push((await explain(c, kinds(g.dimensions).float.sql(0), [q])).ms);
      }
      rows.push({
        geometry: geometryName(g),
        size,
        index: 'none (exact scan)',
        buildSeconds: 0,
        indexMb: 0,
        ef: '-',
        recall: 1,
        ms: median(exactMs),
        buffers: NaN,
      });
      const plan: [IndexKind, { m: number; efConstruction: number }][] = builds.map((b) => [
        kinds(g.dimensions).float,
        b,
      ]);
      if (g.kind === 'standin')
        for (const b of quantized) plan.push([kinds(g.dimensions).half, b], [kinds(g.dimensions).binary, b]);
      for (const [kind, b] of plan) {
        await c.query('drop index if exists items_hnsw');
        const t0 = performance.now();
        await c.query(kind.ddl(b));
        const buildSeconds = (performance.now() - t0) / 1000;
        const mb =
          Number((await c.query<{ n: string }>(`select pg_relation_size('items_hnsw') as n`)).rows[0]!.n) /
          2 ** 20;
        // The index path even where the planner would scan a small table instead.
        await c.query('set enable_seqscan = off');
        for (const ef of kind.efs) {
          await c.query(`set hnsw.ef_search = ${ef}`);
          let hits = 0;
          let total = 0;
          const ms: number[] = [];
          const buffers: number[] = [];
          for (const [k, q] of queries.entries()) {
            const r = await c.query<{ id: number; distance: number }>(kind.sql(ef), [q]);
            const e = exact[k]!;
            hits += r.rows.filter((x) => Number(x.distance) <= e.kth + 1e-6).length;
            total += e.ids.size;
            if (k < EXPLAINED) {
              const x = await explain(c, kind.sql(ef), [q]);
              ms.push(x.ms);
              buffers.push(x.buffers);
            }
          }
          const row: Row = {
            geometry: geometryName(g),
            size,
            index: `${kind.name} m ${b.m} / ef_construction ${b.efConstruction}`,
            buildSeconds,
            indexMb: mb,
            ef,
            recall: hits / total,
            ms: median(ms),
            buffers: median(buffers),
          };
          rows.push(row);
          log(
            `  ${row.index}: build ${buildSeconds.toFixed(0)} s, ${mb.toFixed(0)} MB; ef ${ef}: recall ${row.recall.toFixed(3)}, ${row.ms.toFixed(2)} ms, ${row.buffers} buffers`,
          );
        }
      }
      await c.query('drop index if exists items_hnsw');
      await c.query('reset enable_seqscan');
    }
  } finally {
    await c.end();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const load0 = loadavg();
  const rows: Row[] = [];
  let server = '';
  {
    const db = await createTestDatabase('engram_hnsw');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const r = await c.query<{ v: string; sb: string; pgv: string }>(
      `select current_setting('server_version') as v, current_setting('shared_buffers') as sb, (select extversion from pg_extension where extname = 'vector') as pgv`,
    );
    server = `PostgreSQL ${r.rows[0]!.v} (shared_buffers ${r.rows[0]!.sb}), pgvector ${r.rows[0]!.pgv}`;
    await c.end();
    await db.drop();
  }
  for (const g of geometries) await measure(g, rows);
  const body = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${server}, with \`make bench-hnsw\` (BENCH_HNSW_SIZES=${sizes.join(',')}, BENCH_HNSW_BUILDS=${builds.map((b) => `${b.m}x${b.efConstruction}`).join(',')}). Load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start and ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' / ',
      )} at the end (1 / 5 / 15 min; above 2 the machine was shared and times are inflated, buffers are not).`,
    '',
    `${QUERIES} queries (five words of a memory), top 10, no filter; recall@10 = returned rows within the exact 10th distance; ms = median PostgreSQL execution time and buffers = median shared buffers touched, over ${EXPLAINED} queries (EXPLAIN ANALYZE).`,
    '',
    '| embedding space | memories | index | build s | index MB | ef_search | recall@10 | ms / query | buffers / query |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.geometry} | ${r.size.toLocaleString('en')} | ${r.index} | ${r.buildSeconds ? r.buildSeconds.toFixed(0) : '-'} | ${r.indexMb ? r.indexMb.toFixed(0) : '-'} | ${r.ef} | ${r.recall.toFixed(3)} | ${r.ms.toFixed(2)} | ${Number.isFinite(r.buffers) ? r.buffers.toFixed(0) : '-'} |`,
    ),
  ].join('\n');
  if (env.BENCH_DOCS === '0') log(body);
  else {
    writeBenchSection('hnsw', body);
    log(body);
    log('\nwritten to docs/benchmarks.md');
  }
}

await main();
