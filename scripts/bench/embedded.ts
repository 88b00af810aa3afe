/**
 * `make bench-embedded`: the embedded suite (`make start`: compiled JavaScript, PGlite, the
 * in-process bus) as a new user first meets it. 5,000 adds through the REST gateway from 16 clients
 * into an empty data directory, then queries from 16 clients over those 5,000 memories (top_k 10, the
 * system key), with p50 and p99 and the process's CPU per operation. Each mode is a set of settings
 * the process starts with; modes are run in turns (a, b, a, b, ...) so that load from other work on
 * the machine falls on all of them. Replaces the bench:embedded section of docs/benchmarks.md.
 *   BENCH_EMBEDDED_ROUNDS=2     turns per mode
 *   BENCH_EMBEDDED_MEMORIES=5000
 *   BENCH_EMBEDDED_QUERIES=3000
 *   BENCH_EMBEDDED_COMPARE=group-commit   or in-process, pglite-worker, pglite-hnsw: which decision's modes
 *   BENCH_DOCS=0                print instead of writing docs/benchmarks.md
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { writeBenchSection } from './bench-section.ts';
import { memoryText, queryText } from './retrieval/corpus.ts';
import { CpuMeter, cpuLine, type CpuSnapshot } from './retrieval/cpu.ts';
import { ok } from './retrieval/scenarios.ts';
import { median, runLoad, type LoadResult } from './retrieval/stats.ts';
import { EmbeddedTarget } from './retrieval/targets.ts';

const env = process.env;
const ROUNDS = Number(env.BENCH_EMBEDDED_ROUNDS ?? 2);
const MEMORIES = Number(env.BENCH_EMBEDDED_MEMORIES ?? 5000);
const QUERIES = Number(env.BENCH_EMBEDDED_QUERIES ?? 3000);
const CLIENTS = 16;
const NAMESPACE = 'embedded-bench';

interface Mode {
  readonly name: string;
  readonly settings: Record<string, string>;
}

/**
 * What is compared: the shipped default and the option it replaced, per decision
 * (BENCH_EMBEDDED_COMPARE, default group-commit).
 */
const COMPARISONS: Readonly<Record<string, readonly Mode[]>> = {
  'in-process': [
    {
      name: 'in-process calls (EMBEDDED_IN_PROCESS=true, the default)',
      settings: { EMBEDDED_IN_PROCESS: 'true' },
    },
    { name: 'loopback gRPC (EMBEDDED_IN_PROCESS=false)', settings: { EMBEDDED_IN_PROCESS: 'false' } },
  ],
  // The hash space's HNSW build on PGlite: the PostgreSQL default (m 24 / ef_construction 200)
  // against two smaller builds (each HNSW insert is WASM on the one thread of the process).
  'pglite-hnsw': [
    { name: 'hash HNSW m 24 / ef_construction 200', settings: { HNSW_M: '24', HNSW_EF_CONSTRUCTION: '200' } },
    { name: 'hash HNSW m 16 / ef_construction 128', settings: { HNSW_M: '16', HNSW_EF_CONSTRUCTION: '128' } },
    { name: 'hash HNSW m 16 / ef_construction 64', settings: { HNSW_M: '16', HNSW_EF_CONSTRUCTION: '64' } },
  ],
  // Group commit (writes arriving together go as one multi-row statement) with PGlite on either
  // thread; DATABASE_WRITE_GROUP_MAX=1 writes each memory alone, as before group commit.
  'group-commit': [
    {
      name: 'worker thread, group commit (the default)',
      settings: { PGLITE_WORKER: 'true', DATABASE_WRITE_GROUP_MAX: '64' },
    },
    {
      name: 'worker thread, each write alone',
      settings: { PGLITE_WORKER: 'true', DATABASE_WRITE_GROUP_MAX: '1' },
    },
    {
      name: 'main thread, group commit',
      settings: { PGLITE_WORKER: 'false', DATABASE_WRITE_GROUP_MAX: '64' },
    },
    {
      name: 'main thread, each write alone',
      settings: { PGLITE_WORKER: 'false', DATABASE_WRITE_GROUP_MAX: '1' },
    },
  ],
  'pglite-worker': [
    {
      name: 'PGlite in a worker thread (PGLITE_WORKER=true, the default)',
      settings: { PGLITE_WORKER: 'true' },
    },
    { name: 'PGlite on the main thread', settings: { PGLITE_WORKER: 'false' } },
  ],
};
function modesOf(compare: string): readonly Mode[] {
  const modes = COMPARISONS[compare];
  if (modes === undefined)
    throw new Error(`BENCH_EMBEDDED_COMPARE: one of ${Object.keys(COMPARISONS).join(', ')}`);
  return modes;
}
const MODES = modesOf(env.BENCH_EMBEDDED_COMPARE ?? 'group-commit');

interface Run {
  readonly writes: LoadResult;
  readonly queries: LoadResult;
  readonly writeCpu: CpuSnapshot;
  readonly queryCpu: CpuSnapshot;
}

async function runOnce(mode: Mode): Promise<Run> {
  const target = new EmbeddedTarget(mode.settings);
  try {
    const api = await target.start();
    const meter = new CpuMeter(new Map([['engram', target.pid!]]));
    const add = (i: number) =>
      ok(api, '/memories/add', {
        content: memoryText(i),
        agent_id: `writer-${i % CLIENTS}`,
        namespace: NAMESPACE,
      });
    // Warm-up (connections, key cache, JIT): 100 adds, counted among the 5,000.
    await runLoad(4, 100, add);
    const [writes, writeCpu] = await meter.measure(
      () => runLoad(CLIENTS, MEMORIES - 100, (i) => add(i + 100)),
      (r) => r.count - r.errors,
    );
    const query = (i: number) =>
      ok(api, '/memories/query', { query: queryText(i % MEMORIES, i), namespace: NAMESPACE, top_k: 10 });
    await runLoad(4, 100, query);
    const [queries, queryCpu] = await meter.measure(
      () => runLoad(CLIENTS, QUERIES, query),
      (r) => r.count - r.errors,
    );
    return { writes, queries, writeCpu, queryCpu };
  } finally {
    await target.stop();
    target.remove();
  }
}

const f1 = (x: number) => x.toFixed(1);

async function main(): Promise<void> {
  const started = new Date();
  const load0 = loadavg();
  const runs = new Map<Mode, Run[]>(MODES.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const mode of round % 2 === 0 ? MODES : [...MODES].reverse()) {
      const r = await runOnce(mode);
      runs.get(mode)!.push(r);
      console.log(
        `${mode.name}: ${f1(r.writes.perSecond)} writes/s (p50 ${f1(r.writes.p50)}, p99 ${f1(r.writes.p99)} ms, ` +
          `${r.writes.errors} errors), ${f1(r.queries.perSecond)} q/s (p50 ${f1(r.queries.p50)}, ` +
          `p99 ${f1(r.queries.p99)} ms, ${r.queries.errors} errors); CPU per write ${cpuLine(r.writeCpu)}; ` +
          `per query ${cpuLine(r.queryCpu)}`,
      );
    }
  const load1 = loadavg();
  const lines = [
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ` +
      `${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, with ` +
      `\`make bench-embedded\` (${ROUNDS} runs per mode, in turns; ${MEMORIES} adds then ${QUERIES} queries, ` +
      `${CLIENTS} clients each, a new data directory per run). Load average ${load0.map(f1).join(' / ')} at ` +
      `the start, ${load1.map(f1).join(' / ')} at the end (1 / 5 / 15 min; the machine has 2 cores).`,
    '',
    "Each cell is the median of the runs (every run below). CPU is the embedded process's, all threads, per operation.",
    '',
    '| mode | writes/s | write p50 / p99 ms | CPU per write | q/s at 5,000 | query p50 / p99 ms | CPU per query |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [mode, rs] of runs) {
    const m = (get: (r: Run) => number) => f1(median(rs.map(get)));
    lines.push(
      `| ${mode.name} | ${m((r) => r.writes.perSecond)} | ${m((r) => r.writes.p50)} / ${m((r) => r.writes.p99)} | ` +
        `${m((r) => r.writeCpu.engram!)} ms | ${m((r) => r.queries.perSecond)} | ${m((r) => r.queries.p50)} / ` +
        `${m((r) => r.queries.p99)} | ${m((r) => r.queryCpu.engram!)} ms |`,
    );
  }
  lines.push('');
  for (const [mode, rs] of runs)
    lines.push(
      `- ${mode.name}: ` +
        rs
          .map(
            (r) =>
              `${f1(r.writes.perSecond)} writes/s and ${f1(r.queries.perSecond)} q/s ` +
              `(${r.writes.errors + r.queries.errors} errors)`,
          )
          .join('; '),
    );
  const body = lines.join('\n');
  if (env.BENCH_DOCS === '0') console.log(body);
  else writeBenchSection('embedded', body);
}

await main();
