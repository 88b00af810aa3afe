/**
 * `make bench-peers`: Engram and mem0 OSS in the same run, on the same PostgreSQL, the same corpus,
 * the same OpenAI-compatible embedding stand-in (a process of its own) and the same client counts;
 * prints Engram/mem0 ratios and writes the bench:peers section of docs/benchmarks.md.
 *
 * Engram: the six processes (startDistributed) on their own database, EMBEDDING_PROVIDER=openai
 * pointing at the stand-in, every add through the REST gateway (screened, embedded, signed, stored
 * with provenance and an audit event), queries with an agent-bound internal key (visibility in the
 * SQL) and, once per size, over the whole project with the system key.
 * mem0: `Memory` from the mem0ai package called in this process, its pgvector store on a database
 * of its own with its HNSW option on, its OpenAI embedder pointing at the stand-in, its default
 * SQLite history in a temporary file. `add(text, {userId, infer: false})`: mem0 stores the text as
 * one memory without calling an LLM (one embedding request, one INSERT, one history row); its
 * `search` embeds the query, runs its vector search and its keyword search and ranks.
 * Read sets are loaded directly (Engram: signed rows into memories; mem0: its own createMemory with
 * the stand-in's vectors), each index built after the load as the store would build it.
 *
 * Options (environment):
 *   BENCH_PEERS_SIZES=10000,100000   read-set sizes
 *   BENCH_PEERS_DIMS=384,1536        embedding sizes
 *   BENCH_PEERS_SYSTEMS=engram,mem0
 *   BENCH_PEERS_PG=default           a label for the PostgreSQL server used (ENGRAM_TEST_DATABASE_URL)
 *   BENCH_PEERS_SECONDS=60           at most this long per load point (fewer requests when slow)
 *   BENCH_DOCS=0                     print instead of writing docs/benchmarks.md
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import {
  createTestDatabase,
  startDistributed,
  type ApiClient,
  type DistributedEngram,
  type TestDatabase,
} from '@engram/testing';
import { writeBenchSection } from './bench-section.ts';
import { bulkLoad, BENCH_NAMESPACE } from './retrieval/bulk-load.ts';
import { memoryText, queryText } from './retrieval/corpus.ts';
import { CpuMeter, cpuLine, type CpuSnapshot, type PostgresScope } from './retrieval/cpu.ts';
import { ok } from './retrieval/scenarios.ts';
import { percentile, type LoadResult } from './retrieval/stats.ts';
import { BENCH_ENV } from './retrieval/targets.ts';
import { corpusVectors, standInModel } from './vectors/corpus-vectors.ts';
import { startStandIn } from './vectors/standin-process.ts';

const env = process.env;
const log = (s: string) => process.stdout.write(s + '\n');
const list = (v: string | undefined, d: string) => (v ?? d).split(',').filter((x) => x !== '');
const sizes = list(env.BENCH_PEERS_SIZES, '10000,100000').map(Number);
/** mem0's read-set sizes, when they must differ (its load runs one memory at a time). */
const mem0Sizes = list(env.BENCH_PEERS_MEM0_SIZES, sizes.join(',')).map(Number);
const dimsList = list(env.BENCH_PEERS_DIMS, '384,1536').map(Number);
const systems = list(env.BENCH_PEERS_SYSTEMS, 'engram,mem0');
const pgLabel = env.BENCH_PEERS_PG ?? 'default';
const maxSeconds = Number(env.BENCH_PEERS_SECONDS ?? 60);
/** Set by main: the postmaster of a private server (all its processes count), else undefined. */
let postmasterPid: number | undefined;
const pgScope = (database: string): PostgresScope =>
  postmasterPid !== undefined ? { postmasterPid } : { databases: [database] };

/** `total` operations from `clients` loops, stopping early after maxSeconds (the count says how many ran). */
async function runFor(
  clients: number,
  total: number,
  op: (i: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + maxSeconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total && performance.now() < deadline) {
        const i = next++;
        const t0 = performance.now();
        if (await op(i)) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count: next,
    errors,
    seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    perSecond: (next - errors) / seconds,
  };
}

async function metered(
  meter: CpuMeter,
  load: () => Promise<LoadResult>,
): Promise<[LoadResult, CpuSnapshot | undefined]> {
  if (!meter.available) return [await load(), undefined];
  return meter.measure(load, (r) => r.count - r.errors);
}

interface Point {
  readonly add1: LoadResult;
  readonly add32: LoadResult;
  readonly add32Cpu: CpuSnapshot | undefined;
  readonly reads: {
    size: number;
    query1: LoadResult;
    query16: LoadResult;
    query16Cpu: CpuSnapshot | undefined;
    /** Engram only: the whole project with the system key, 1 client. */
    wholeProject1?: LoadResult | undefined;
  }[];
}

let writeSeq = 20_000_000;
const writeText = () => {
  const i = writeSeq++;
  return { i, content: `${memoryText(i)} (write ${i})` };
};
const queryBody = (size: number, i: number) => queryText((i * 7919) % size, i);

async function engram(dims: number, baseUrl: string, standInPid: number): Promise<Point> {
  const db = await createTestDatabase('engram_peers');
  let d: DistributedEngram | undefined;
  const knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
  try {
    d = await startDistributed({
      databaseUrl: db.url,
      natsUrl: env.ENGRAM_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
      natsStream: `ENGRAM_PEERS_${Date.now()}`,
      env: {
        ...BENCH_ENV,
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_BASE_URL: baseUrl,
        EMBEDDING_MODEL: standInModel(dims),
        EMBEDDING_DIMENSIONS: String(dims),
        EMBEDDING_API_KEY: 'stand-in',
      },
    });
    const meter = new CpuMeter(
      new Map([
        ...[...d.processes].map(([name, p]) => [name, p.child.pid ?? -1] as [string, number]),
        ['embedding stand-in', standInPid],
      ]),
      pgScope(db.name),
    );
    const admin = d.admin;
    const add = () => {
      const w = writeText();
      return ok(admin, '/memories/add', {
        content: w.content,
        agent_id: `writer-${w.i % 32}`,
        namespace: 'writes',
      });
    };
    log(`engram ${dims}: writes`);
    await runFor(4, 50, add);
    const add1 = await runFor(1, 300, add);
    const [add32, add32Cpu] = await metered(meter, () => runFor(32, 2000, add));
    log(`  add p50 ${add1.p50.toFixed(1)} ms, ${add32.perSecond.toFixed(0)} adds/s at 32`);
    if (add32Cpu) log(`  cpu per add: ${cpuLine(add32Cpu)}`);
    const reader = await admin.createKey({
      trust_level: 'internal',
      bound_agent_id: 'agent-3',
      name: 'bench-reader',
    });
    const reads: Point['reads'] = [];
    let loaded = 0;
    for (const size of sizes) {
      log(`engram ${dims}: loading ${size.toLocaleString('en')}`);
      await bulkLoad(knex, {
        integrityKey: d.integrityKey,
        from: loaded,
        to: size,
        rebuildIndex: true,
        maintenanceWorkMem: `${Math.max(512, Math.ceil((size * dims * 8) / 1e6))}MB`,
        log,
        vectors: (from, to) => corpusVectors({ kind: 'standin', dimensions: dims }, from, to),
      });
      loaded = size;
      const q = (api: ApiClient) => (i: number) =>
        ok(api, '/memories/query', { query: queryBody(size, i), namespace: BENCH_NAMESPACE, top_k: 10 });
      await runFor(4, 100, q(reader));
      const query1 = await runFor(1, 300, q(reader));
      const [query16, query16Cpu] = await metered(meter, () => runFor(16, 2000, q(reader)));
      const wholeProject1 = await runFor(1, 100, q(admin));
      reads.push({ size, query1, query16, query16Cpu, wholeProject1 });
      log(
        `  query p50 ${query1.p50.toFixed(1)} ms, ${query16.perSecond.toFixed(0)} q/s at 16; whole project p50 ${wholeProject1.p50.toFixed(1)} ms`,
      );
      if (query16Cpu) log(`  cpu per query: ${cpuLine(query16Cpu)}`);
    }
    return { add1, add32, add32Cpu, reads };
  } finally {
    await knex.destroy();
    await d?.stop();
    await db.drop();
  }
}

interface Mem0Memory {
  add(text: string, opts: Record<string, unknown>): Promise<unknown>;
  search(query: string, opts: Record<string, unknown>): Promise<{ results: unknown[] }>;
  /** Its vector store (the read-set load collects what createMemory inserts). */
  vectorStore: {
    insert(vectors: number[][], ids: string[], payloads: Record<string, unknown>[]): Promise<void>;
  };
  /** mem0's own path for one memory whose embedding is known (internal, used for the read-set load). */
  createMemory(
    data: string,
    embeddings: Record<string, number[]>,
    metadata: Record<string, unknown>,
  ): Promise<string>;
}

async function mem0(dims: number, baseUrl: string, standInPid: number, db: TestDatabase): Promise<Point> {
  // Before the package loads: no telemetry and no notice lookups leave this machine.
  process.env.MEM0_TELEMETRY = 'false';
  // mem0 and what its pgvector store and SQLite history need are installed by `make bench-peers` into
  // scripts/bench/peers (its own package.json and lock), not into the project's dependencies.
  const peers = createRequire(new URL('./peers/package.json', import.meta.url));
  const { Memory } = peers('mem0ai/oss') as {
    Memory: new (config: Record<string, unknown>) => Mem0Memory;
  };
  const historyDir = mkdtempSync(join(tmpdir(), 'mem0-history-'));
  const embedder = { apiKey: 'stand-in', baseURL: baseUrl, model: standInModel(dims), embeddingDims: dims };
  const config = (history: boolean) => ({
    version: 'v1.1',
    embedder: { provider: 'openai', config: embedder },
    vectorStore: {
      provider: 'pgvector',
      config: {
        connectionString: db.url,
        collectionName: `memories_${dims}`,
        embeddingModelDims: dims,
        dimension: dims,
        hnsw: true,
      },
    },
    // Never called with infer: false; pointed at the stand-in so nothing could leave the machine.
    llm: { provider: 'openai', config: { apiKey: 'stand-in', baseURL: baseUrl, model: 'stand-in' } },
    historyStore: { provider: 'sqlite', config: { historyDbPath: join(historyDir, 'history.db') } },
    disableHistory: !history,
  });
  const memory = new Memory(config(true));
  // The read-set load goes through mem0's own createMemory (payload, lemmatized text, id) on a
  // second instance without the history, which searches never read; its vector store's insert is
  // replaced by a collector, and the rows it would have inserted one autocommitted statement at a
  // time (about 80 a second here, each waiting for its own WAL flush) go in 500 per statement, one
  // transaction per 10,000: the same rows, written as mem0's insert writes them.
  // Made after the first instance has created the tables (two initialising at once collide).
  let loader: Mem0Memory | undefined;
  const knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
  const meter = new CpuMeter(new Map([['embedding stand-in', standInPid]]), pgScope(db.name));
  try {
    const add = async () => {
      const w = writeText();
      try {
        await memory.add(w.content, { userId: `writer-${w.i % 32}`, infer: false });
        return true;
      } catch {
        return false;
      }
    };
    log(`mem0 ${dims}: writes`);
    await runFor(4, 50, add);
    const add1 = await runFor(1, 300, add);
    const [add32, add32Cpu] = await metered(meter, () => runFor(32, 2000, add));
    log(`  add p50 ${add1.p50.toFixed(1)} ms, ${add32.perSecond.toFixed(0)} adds/s at 32`);
    if (add32Cpu) log(`  cpu per add: ${cpuLine(add32Cpu)}`);
    loader = new Memory(config(false));
    const load = loader;
    const table = `memories_${dims}`;
    const reads: Point['reads'] = [];
    let loaded = 0;
    for (const size of mem0Sizes) {
      log(`mem0 ${dims}: loading ${size.toLocaleString('en')}`);
      const t0 = performance.now();
      // Its index is rebuilt after the load, as Engram's is (the same DDL as mem0's hnsw option).
      await knex.raw(`drop index if exists ${table}_hnsw_idx`);
      for (let s = loaded; s < size; s += 10_000) {
        const vs = await corpusVectors({ kind: 'standin', dimensions: dims }, s, Math.min(size, s + 10_000));
        const rows: { id: string; vector: string; payload: unknown }[] = [];
        load.vectorStore.insert = (vectors, ids, payloads) => {
          vectors.forEach((v, k) =>
            rows.push({ id: ids[k]!, vector: `[${v.join(',')}]`, payload: payloads[k] }),
          );
          return Promise.resolve();
        };
        for (let k = 0; k < vs.length; k++) {
          const text = memoryText(s + k);
          await load.createMemory(text, { [text]: Array.from(vs[k]!) }, { user_id: 'bench' });
        }
        await knex.transaction(async (trx) => {
          for (let r = 0; r < rows.length; r += 500)
            await trx.raw(
              `insert into ${table} (id, vector, payload) values ${rows
                .slice(r, r + 500)
                .map(() => '(?, ?::vector, ?::jsonb)')
                .join(', ')}`,
              rows.slice(r, r + 500).flatMap((x) => [x.id, x.vector, JSON.stringify(x.payload)]),
            );
        });
      }
      await knex.transaction(async (trx) => {
        await trx.raw(
          `set local maintenance_work_mem = '${Math.max(512, Math.ceil((size * dims * 8) / 1e6))}MB'`,
        );
        await trx.raw(`create index ${table}_hnsw_idx on ${table} using hnsw (vector vector_cosine_ops)`);
      });
      await knex.raw(`analyze ${table}`);
      log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      loaded = size;
      const q = async (i: number) => {
        try {
          const r = await memory.search(queryBody(size, i), { filters: { user_id: 'bench' }, topK: 10 });
          return r.results.length > 0;
        } catch {
          return false;
        }
      };
      await runFor(4, 20, q);
      const query1 = await runFor(1, 300, q);
      const [query16, query16Cpu] = await metered(meter, () => runFor(16, 2000, q));
      reads.push({ size, query1, query16, query16Cpu });
      log(`  query p50 ${query1.p50.toFixed(1)} ms, ${query16.perSecond.toFixed(0)} q/s at 16`);
      if (query16Cpu) log(`  cpu per query: ${cpuLine(query16Cpu)}`);
    }
    return { add1, add32, add32Cpu, reads };
  } finally {
    await knex.destroy();
    // mem0 keeps one pg client per store open; close them before the database is dropped.
    for (const m of [memory, loader].filter((x) => x !== undefined) as unknown as {
      vectorStore?: { client?: { end(): Promise<void> } };
      _entityStore?: { client?: { end(): Promise<void> } };
      db?: { close(): void };
    }[]) {
      await m.vectorStore?.client?.end().catch(() => undefined);
      await m._entityStore?.client?.end().catch(() => undefined);
      m.db?.close();
    }
    rmSync(historyDir, { recursive: true, force: true });
  }
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : '-';

function table(dims: number, e: Point | undefined, m: Point | undefined): string[] {
  const out = [
    `#### ${dims} dimensions`,
    '',
    '| operation | mem0 | Engram | Engram/mem0 |',
    '|---|---|---|---|',
    `| add, 1 client, p50 ms | ${f1(m?.add1.p50 ?? NaN)} | ${f1(e?.add1.p50 ?? NaN)} | ${ratio(e?.add1.p50 ?? NaN, m?.add1.p50 ?? NaN)} |`,
    `| adds/s, 32 clients | ${f1(m?.add32.perSecond ?? NaN)} | ${f1(e?.add32.perSecond ?? NaN)} | ${ratio(e?.add32.perSecond ?? NaN, m?.add32.perSecond ?? NaN)} |`,
  ];
  const allSizes = [...new Set([...sizes, ...mem0Sizes])].sort((a, b) => a - b);
  for (const size of allSizes) {
    const er = e?.reads.find((r) => r.size === size);
    const mr = m?.reads.find((r) => r.size === size);
    const n = size.toLocaleString('en');
    out.push(
      `| query at ${n}, 1 client, p50 ms | ${f1(mr?.query1.p50 ?? NaN)} | ${f1(er?.query1.p50 ?? NaN)} | ${ratio(er?.query1.p50 ?? NaN, mr?.query1.p50 ?? NaN)} |`,
      `| q/s at ${n}, 16 clients | ${f1(mr?.query16.perSecond ?? NaN)} | ${f1(er?.query16.perSecond ?? NaN)} | ${ratio(er?.query16.perSecond ?? NaN, mr?.query16.perSecond ?? NaN)} |`,
    );
  }
  out.push('');
  const cpu: string[] = [];
  if (e?.add32Cpu) cpu.push(`- Engram add at 32 clients: ${cpuLine(e.add32Cpu)}`);
  if (m?.add32Cpu)
    cpu.push(`- mem0 add at 32 clients (mem0 runs in the load generator): ${cpuLine(m.add32Cpu)}`);
  for (const size of allSizes) {
    const er = e?.reads.find((r) => r.size === size);
    const mr = m?.reads.find((r) => r.size === size);
    if (er?.query16Cpu)
      cpu.push(`- Engram query at 16 clients, ${size.toLocaleString('en')}: ${cpuLine(er.query16Cpu)}`);
    if (mr?.query16Cpu)
      cpu.push(`- mem0 query at 16 clients, ${size.toLocaleString('en')}: ${cpuLine(mr.query16Cpu)}`);
  }
  const pgCounted =
    postmasterPid !== undefined
      ? 'every process of the private server'
      : "the backends of the bench's databases, not the shared server's WAL writer and checkpointer";
  if (cpu.length > 0)
    out.push(`CPU ms per operation by process (from /proc; PostgreSQL: ${pgCounted}):`, '', ...cpu, '');
  const detail = [
    ...(e
      ? [
          `Engram add: 1 client ${e.add1.count} requests (p95 ${f1(e.add1.p95)} ms), 32 clients ${e.add32.count} (p50 ${f1(e.add32.p50)}, p99 ${f1(e.add32.p99)} ms, ${e.add32.errors} errors)`,
        ]
      : []),
    ...(m
      ? [
          `mem0 add: 1 client ${m.add1.count} (p95 ${f1(m.add1.p95)} ms), 32 clients ${m.add32.count} (p50 ${f1(m.add32.p50)}, p99 ${f1(m.add32.p99)} ms, ${m.add32.errors} errors)`,
        ]
      : []),
    ...allSizes.flatMap((size) => {
      const er = e?.reads.find((r) => r.size === size);
      const mr = m?.reads.find((r) => r.size === size);
      const n = size.toLocaleString('en');
      return [
        ...(er
          ? [
              `Engram query at ${n}: 16 clients ${er.query16.count} requests (p50 ${f1(er.query16.p50)}, p99 ${f1(er.query16.p99)} ms, ${er.query16.errors} errors); the whole project with the system key, 1 client: p50 ${f1(er.wholeProject1?.p50 ?? NaN)} ms`,
            ]
          : []),
        ...(mr
          ? [
              `mem0 query at ${n}: 1 client ${mr.query1.count} requests, 16 clients ${mr.query16.count} (p50 ${f1(mr.query16.p50)}, p99 ${f1(mr.query16.p99)} ms, ${mr.query16.errors} errors)`,
            ]
          : []),
      ];
    }),
  ];
  out.push(...detail.map((l) => `- ${l}`), '');
  return out;
}

async function main(): Promise<void> {
  const started = new Date();
  const load0 = loadavg();
  const sb = await (async () => {
    const db = await createTestDatabase('engram_peers');
    const k = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 } });
    const r = await k.raw<{ rows: { v: string; sb: string; pgv: string; pid: number }[] }>(
      `select current_setting('server_version') as v,
              'shared_buffers ' || current_setting('shared_buffers') || ', effective_cache_size ' || current_setting('effective_cache_size') ||
              ', work_mem ' || current_setting('work_mem') || ', maintenance_work_mem ' || current_setting('maintenance_work_mem') ||
              ', max_wal_size ' || current_setting('max_wal_size') || ', random_page_cost ' || current_setting('random_page_cost') as sb,
              (select extversion from pg_extension where extname = 'vector') as pgv, pg_backend_pid() as pid`,
    );
    // A private server (not the default one): count every process of it (its postmaster's children).
    if (pgLabel !== 'default') {
      const stat = readFileSync(`/proc/${r.rows[0]!.pid}/stat`, 'utf8');
      postmasterPid = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
    }
    await k.destroy();
    await db.drop();
    return r.rows[0]!;
  })();
  const s = await startStandIn();
  const out: string[] = [];
  try {
    for (const dims of dimsList) {
      const e = systems.includes('engram')
        ? await engram(dims, s.baseUrl, s.proc.child.pid ?? -1)
        : undefined;
      let m: Point | undefined;
      if (systems.includes('mem0')) {
        const db = await createTestDatabase('mem0_peers');
        try {
          m = await mem0(dims, s.baseUrl, s.proc.child.pid ?? -1, db);
        } finally {
          await db.drop();
        }
      }
      const t = table(dims, e, m);
      out.push(...t);
      // Each size's table as soon as it is measured (a long run may be cut short).
      log(t.join('\n'));
    }
  } finally {
    await s.proc.stop();
  }
  const body = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${sb.v} as configured ${pgLabel === 'default' ? 'by default' : `(${pgLabel})`} (${sb.sb}), pgvector ${sb.pgv}, with \`make bench-peers\` (BENCH_PEERS_SIZES=${sizes.join(',')}, BENCH_PEERS_MEM0_SIZES=${mem0Sizes.join(',')}, BENCH_PEERS_DIMS=${dimsList.join(',')}). Load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start, ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' / ',
      )} at the end (1 / 5 / 15 min; the machine has 2 cores: above 2, other work competed with the measurement).`,
    '',
    `Each load point runs its requests or ${maxSeconds} s, whichever ends first (the counts are below). Engram/mem0 is Engram's figure over mem0's: for p50 below 1 is faster, for throughput above 1 is more.`,
    '',
    ...out,
  ].join('\n');
  if (env.BENCH_DOCS === '0') log(body);
  else {
    writeBenchSection(`peers-${pgLabel}`, body);
    log(body);
    log('\nwritten to docs/benchmarks.md');
  }
}

await main();
