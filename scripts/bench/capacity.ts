/**
 * `make bench-capacity`: the figures of docs/capacity.md. The six processes (startDistributed) on
 * the machine's PostgreSQL with the hash embedder; at each size (bulk-loaded memories) adds from 32
 * clients and queries from 16 clients (top_k 10, an agent-bound internal key), with the CPU each
 * process and PostgreSQL spent per operation: CPU milliseconds per operation are the cores needed
 * per 1,000 operations per second. Then the check of that model: PostgreSQL pinned to core 0 and
 * every Engram process, nats-server and the load generator to core 1 (taskset), the same loads
 * again. The model predicts each pinned throughput (the core with more milliseconds per operation
 * saturates first: 1,000 / max(core 0 ms, core 1 ms) per second) and the run reports what it got.
 *   BENCH_CAPACITY_SIZES=10000,100000
 *   BENCH_CAPACITY_WRITES=3000    adds per load (fresh content each)
 *   BENCH_CAPACITY_QUERIES=3000   queries per load
 *   BENCH_CAPACITY_EMBEDDER=hash  or standin: EMBEDDING_PROVIDER=openai on the OpenAI-compatible
 *                                 stand-in (sentence-embedding geometry, a process of its own whose
 *                                 CPU is reported apart: a hosted embedder's), with the openai
 *                                 space's HNSW defaults unless HNSW_M / HNSW_EF_CONSTRUCTION /
 *                                 HNSW_EF_SEARCH are set
 *   BENCH_CAPACITY_DIMS=384       the stand-in's dimensions
 *   BENCH_DOCS=0                  print instead of writing docs/capacity.md's generated section
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import type { Knex } from 'knex';
import { pinnedHnswSettings, type HnswSettings } from '@engram/db';
import { efSearch } from '@engram/memories';
import type { ApiClient, DistributedEngram } from '@engram/testing';
import { writeBenchSection } from './bench-section.ts';
import { BENCH_NAMESPACE, bulkLoad } from './retrieval/bulk-load.ts';
import { queryText } from './retrieval/corpus.ts';
import { CpuMeter, pidsNamed, type CpuSnapshot } from './retrieval/cpu.ts';
import { hnswRecall } from './retrieval/recall.ts';
import { benchAdd, ok } from './retrieval/scenarios.ts';
import { runLoad, type LoadResult } from './retrieval/stats.ts';
import { BENCH_ENV, startPostgresSuite } from './retrieval/targets.ts';
import { corpusVectors, embedOne, standInModel, type Geometry } from './vectors/corpus-vectors.ts';
import { startStandIn } from './vectors/standin-process.ts';

const env = process.env;
const SIZES = (env.BENCH_CAPACITY_SIZES ?? '10000,100000').split(',').map(Number);
const WRITES = Number(env.BENCH_CAPACITY_WRITES ?? 3000);
const QUERIES = Number(env.BENCH_CAPACITY_QUERIES ?? 3000);
const EMBEDDER = env.BENCH_CAPACITY_EMBEDDER ?? 'hash';
if (EMBEDDER !== 'hash' && EMBEDDER !== 'standin')
  throw new Error('BENCH_CAPACITY_EMBEDDER: hash or standin');
const DIMS = EMBEDDER === 'standin' ? Number(env.BENCH_CAPACITY_DIMS ?? 384) : 384;
const GEOMETRY: Geometry = { kind: EMBEDDER, dimensions: DIMS };
const HNSW_ENV = Object.fromEntries(
  (['HNSW_M', 'HNSW_EF_CONSTRUCTION', 'HNSW_EF_SEARCH'] as const).flatMap((k) =>
    env[k] ? [[k, env[k]] as const] : [],
  ),
);
const log = (s: string) => process.stdout.write(s + '\n');
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

/** Every pid of a process and its threads' affinity set to `cores` (taskset -a). */
function pin(pids: readonly number[], cores: string): void {
  for (const pid of pids) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    } catch {
      // exited meanwhile
    }
  }
}

interface Load {
  readonly result: LoadResult;
  readonly cpu: CpuSnapshot;
}

interface SizeRun {
  readonly size: number;
  readonly recall: number;
  readonly writes: Load;
  readonly queries: Load;
  readonly pinnedWrites: Load;
  readonly pinnedQueries: Load;
}

/** The load generator and PostgreSQL: the processes the model's two cores are split by. */
const PG = 'postgres';
const LOADGEN = 'load generator';
/** The embedding stand-in: a hosted embedder's work, on core 1 in the check, outside Engram's totals. */
const STANDIN = 'embedding stand-in';

/** CPU ms per operation on core 0 (PostgreSQL) and on core 1 (everything else) in the pinned runs. */
function coreSplit(cpu: CpuSnapshot): [number, number] {
  let other = 0;
  for (const [k, v] of Object.entries(cpu)) if (k !== PG) other += v;
  return [cpu[PG] ?? 0, other];
}

function predicted(cpu: CpuSnapshot): number {
  const [pg, other] = coreSplit(cpu);
  return 1000 / Math.max(pg, other);
}

async function measureSize(
  size: number,
  loaded: number,
  knex: Knex,
  d: DistributedEngram,
  reader: ApiClient,
  meter: CpuMeter,
  services: readonly number[],
): Promise<SizeRun> {
  log(`loading ${size.toLocaleString('en')} memories`);
  await bulkLoad(knex, {
    integrityKey: d.integrityKey,
    from: loaded,
    to: size,
    rebuildIndex: true,
    maintenanceWorkMem: `${Math.max(512, Math.ceil((size * DIMS * 8) / 1e6))}MB`,
    log,
    vectors: (from, to) => corpusVectors(GEOMETRY, from, to),
  });
  const query = (i: number) =>
    ok(reader, '/memories/query', {
      query: queryText((i * 7919) % size, i),
      namespace: BENCH_NAMESPACE,
      top_k: 10,
    });
  const loads = async (label: string): Promise<[Load, Load]> => {
    await runLoad(4, 100, query);
    const [w, wc] = await benchAdd(d.admin, 32, WRITES, meter);
    const [q, qc] = await meter.measure(
      () => runLoad(16, QUERIES, query),
      (r) => r.count - r.errors,
    );
    log(
      `  ${label}: ${f1(w.perSecond)} writes/s (${w.errors} errors), ${f1(q.perSecond)} q/s (${q.errors} errors)`,
    );
    return [
      { result: w, cpu: wc! },
      { result: q, cpu: qc },
    ];
  };
  const [writes, queries] = await loads('unpinned');
  const own = [process.pid, ...pidsNamed('nats-server'), ...services];
  // Every process of the server: backends started later are forked by the postmaster and inherit its affinity.
  pin(pidsNamed('postgres'), '0');
  pin(own, '1');
  let pinned: [Load, Load];
  try {
    pinned = await loads('pinned');
  } finally {
    const all = cpus()
      .map((_, i) => i)
      .join(',');
    pin(pidsNamed('postgres'), all);
    pin(own, all);
  }
  // The ef_search of the service's top_k 10 query: its candidate pool of 50 (retrieval-ranking's
  // candidatePool) at the ef_search the store's space is pinned with.
  const space = await pinnedHnswSettings(knex);
  const recall = (
    await hnswRecall(knex, size, efSearch(50, space?.efSearch), 100, (t) => embedOne(GEOMETRY, t))
  ).ids;
  return { size, recall, writes, queries, pinnedWrites: pinned[0], pinnedQueries: pinned[1] };
}

function report(
  runs: readonly SizeRun[],
  started: Date,
  load0: number[],
  pgServer: string,
  hnsw: HnswSettings | undefined,
): string {
  const load1 = loadavg();
  const build = hnsw
    ? `HNSW m ${hnsw.m} / ef_construction ${hnsw.efConstruction} / ef_search ${hnsw.efSearch}`
    : 'HNSW as pinned';
  const space =
    EMBEDDER === 'hash'
      ? `the hash embedder (384 dimensions, ${build})`
      : `EMBEDDING_PROVIDER=openai on the OpenAI-compatible stand-in (sentence-embedding geometry, ${DIMS} ` +
        `dimensions, ${build}; the stand-in's own CPU is listed apart, as a hosted embedder's)`;
  const names = [
    ...new Set(runs.flatMap((r) => [...Object.keys(r.writes.cpu), ...Object.keys(r.queries.cpu)])),
  ].filter((n) => n !== LOADGEN && n !== STANDIN);
  names.sort((a, b) => (a === PG ? -1 : b === PG ? 1 : a.localeCompare(b)));
  const lines = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ` +
      `${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
      `with \`make bench-capacity\`: ${pgServer} The six processes of startDistributed (DATABASE_POOL_MAX 4 ` +
      `each), ${space}, adds from 32 clients (${WRITES} per load, fresh content), ` +
      `queries from 16 clients (${QUERIES} per load, top_k 10, an agent-bound internal key) after a bulk load ` +
      `of each size. Load average ${load0.map(f1).join(' / ')} at the start, ${load1.map(f1).join(' / ')} at ` +
      'the end (1 / 5 / 15 min).',
    '',
    'Cores per 1,000 operations per second (= CPU milliseconds per operation), unpinned runs:',
    '',
    `| process | ${runs.map((r) => `per 1,000 writes/s at ${r.size.toLocaleString('en')}`).join(' | ')} | ${runs.map((r) => `per 1,000 q/s at ${r.size.toLocaleString('en')}`).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}${runs.map(() => '---|').join('')}`,
  ];
  const cell = (cpu: CpuSnapshot, n: string) => f2(cpu[n] ?? 0);
  for (const n of names)
    lines.push(
      `| ${n} | ${runs.map((r) => cell(r.writes.cpu, n)).join(' | ')} | ${runs.map((r) => cell(r.queries.cpu, n)).join(' | ')} |`,
    );
  const total = (cpu: CpuSnapshot) => names.reduce((s, n) => s + (cpu[n] ?? 0), 0);
  lines.push(
    `| **all but the load generator** | ${runs.map((r) => `**${f2(total(r.writes.cpu))}**`).join(' | ')} | ${runs.map((r) => `**${f2(total(r.queries.cpu))}**`).join(' | ')} |`,
    `| (load generator) | ${runs.map((r) => cell(r.writes.cpu, LOADGEN)).join(' | ')} | ${runs.map((r) => cell(r.queries.cpu, LOADGEN)).join(' | ')} |`,
    ...(EMBEDDER === 'standin'
      ? [
          `| (embedding stand-in) | ${runs.map((r) => cell(r.writes.cpu, STANDIN)).join(' | ')} | ${runs.map((r) => cell(r.queries.cpu, STANDIN)).join(' | ')} |`,
        ]
      : []),
    '',
    'Throughput, recall and the check (PostgreSQL on core 0, every other process on core 1; predicted = ' +
      "1,000 / the larger of the two cores' CPU ms per operation, from the unpinned run's figures):",
    '',
    '| size | recall@10 | operation | unpinned /s (p50 / p99 ms) | core 0 / core 1 ms per op | predicted pinned /s | measured pinned /s (p50 / p99 ms) | measured / predicted |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of runs)
    for (const [op, free, pinned] of [
      ['add, 32 clients', r.writes, r.pinnedWrites],
      ['query, 16 clients', r.queries, r.pinnedQueries],
    ] as const) {
      const [c0, c1] = coreSplit(free.cpu);
      const p = predicted(free.cpu);
      lines.push(
        `| ${r.size.toLocaleString('en')} | ${r.recall.toFixed(3)} | ${op} | ${f1(free.result.perSecond)} (${f1(free.result.p50)} / ${f1(free.result.p99)}) | ` +
          `${f2(c0)} / ${f2(c1)} | ${f1(p)} | ${f1(pinned.result.perSecond)} (${f1(pinned.result.p50)} / ${f1(pinned.result.p99)}) | ` +
          `${f2(pinned.result.perSecond / p)} |`,
      );
    }
  lines.push('', 'CPU ms per operation in the pinned runs (core 0 / core 1):', '');
  for (const r of runs) {
    const [w0, w1] = coreSplit(r.pinnedWrites.cpu);
    const [q0, q1] = coreSplit(r.pinnedQueries.cpu);
    lines.push(
      `- ${r.size.toLocaleString('en')}: add ${f2(w0)} / ${f2(w1)}, query ${f2(q0)} / ${f2(q1)}` +
        ` (errors: ${r.pinnedWrites.result.errors + r.pinnedQueries.result.errors + r.writes.result.errors + r.queries.result.errors})`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  execFileSync('taskset', ['--version'], { stdio: 'ignore' }); // fails early without util-linux
  const started = new Date();
  const load0 = loadavg();
  const standIn = EMBEDDER === 'standin' ? await startStandIn() : undefined;
  const ps = await startPostgresSuite('capacity', {
    ...BENCH_ENV,
    ...HNSW_ENV,
    ...(standIn
      ? {
          EMBEDDING_PROVIDER: 'openai',
          EMBEDDING_BASE_URL: standIn.baseUrl,
          EMBEDDING_MODEL: standInModel(DIMS),
          EMBEDDING_DIMENSIONS: String(DIMS),
          EMBEDDING_API_KEY: 'stand-in',
        }
      : {}),
  });
  const { suite: d, knex, server: pgServer } = ps;
  const standInPid = standIn?.proc.child.pid;
  const services = [
    ...[...d.processes.values()].map((p) => p.child.pid ?? -1),
    ...(standInPid !== undefined ? [standInPid] : []),
  ];
  // Every PostgreSQL process counts (the WAL writer and checkpointer work for the writes); the
  // bench's database is the only busy one on the server.
  const meter = new CpuMeter(
    new Map([
      ...[...d.processes].map(([name, p]) => [name, p.child.pid ?? -1] as [string, number]),
      ...(standInPid !== undefined ? [[STANDIN, standInPid] as [string, number]] : []),
    ]),
  );
  try {
    const reader = await d.admin.createKey({
      trust_level: 'internal',
      bound_agent_id: 'agent-3',
      name: 'capacity-reader',
    });
    // Warm-up: connections, key cache, JIT.
    await benchAdd(d.admin, 4, 100);
    const runs: SizeRun[] = [];
    let loaded = 0;
    for (const size of SIZES) {
      runs.push(await measureSize(size, loaded, knex, d, reader, meter, services));
      loaded = size;
    }
    const body = report(runs, started, load0, pgServer, await pinnedHnswSettings(knex));
    if (env.BENCH_DOCS === '0') console.log(body);
    else writeBenchSection(EMBEDDER === 'hash' ? 'capacity' : 'capacity-standin', body, 'docs/capacity.md');
  } finally {
    await ps.stop();
    await standIn?.proc.stop();
  }
}

await main();
