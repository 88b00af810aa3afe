/**
 * `make bench-lexical-write`: what keeping the BM25 index at write time costs a write, on
 * PostgreSQL at 32 concurrent clients. The suite in one process (all-in-one, hash embedder, HNSW
 * index in place), `add` through the gateway with fresh content each time (the write scenario of
 * `make bench`); runs alternate between the lexical insert trigger enabled and disabled on the
 * bench's own database (ALTER TABLE ... DISABLE TRIGGER, never on a served store), so both see the
 * same corpus and the same load on the shared machine. Per run: writes/s, p50 and p95, and CPU per
 * write of the suite process (with the load generator) and of the bench database's PostgreSQL
 * backends.
 * Options (environment):
 *   BENCH_WRITES=2000   adds per run
 *   BENCH_RUNS=3        runs of each mode (alternating, with the trigger first)
 */
import { loadavg } from 'node:os';
import knexFactory from 'knex';
import { startTestEngram } from '@engram/all-in-one/testing';
import { CpuMeter, cpuLine } from './retrieval/cpu.ts';
import { benchAdd } from './retrieval/scenarios.ts';
import { BENCH_ENV } from './retrieval/targets.ts';

const env = process.env;
const WRITES = Number(env.BENCH_WRITES ?? 2000);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const log = (s: string) => process.stdout.write(s + '\n');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

async function main(): Promise<void> {
  const t = await startTestEngram('postgres', { ...BENCH_ENV, DATABASE_POOL_MAX: '32' });
  const url = t.database!.url;
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  // The load generator runs in the suite's process: "load generator" is both.
  const meter = new CpuMeter(new Map(), { databases: [new URL(url).pathname.slice(1)] });
  log(
    `bench-lexical-write ${new Date().toISOString()}, ${WRITES} adds per run at 32 clients, load average ${load()}`,
  );
  try {
    // Warm-up, with the trigger: connections, JIT, and statistics for the namespace the runs write.
    await benchAdd(t.admin, 32, 500);
    const results: Record<'with' | 'without', { perSecond: number; cpu: number; pg: number }[]> = {
      with: [],
      without: [],
    };
    for (let run = 0; run < 2 * RUNS; run++) {
      const mode = run % 2 === 0 ? 'with' : 'without';
      await knex.raw(
        `alter table memories ${mode === 'with' ? 'enable' : 'disable'} trigger memories_lexical_insert`,
      );
      const [r, cpu] = await benchAdd(t.admin, 32, WRITES, meter);
      const total = Object.values(cpu!).reduce((s, v) => s + v, 0);
      results[mode].push({ perSecond: r.perSecond, cpu: total, pg: cpu!.postgres ?? 0 });
      log(
        `  ${mode} the lexical trigger: ${r.perSecond.toFixed(0)} writes/s, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, errors ${r.errors}; CPU per write ${cpuLine(cpu!)}; load average ${load()}`,
      );
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
    const m = (mode: 'with' | 'without', k: 'perSecond' | 'cpu' | 'pg') =>
      mean(results[mode].map((x) => x[k]));
    log(
      `mean of ${RUNS} runs each: with the trigger ${m('with', 'perSecond').toFixed(0)} writes/s, ${m('with', 'cpu').toFixed(2)} ms CPU per write (PostgreSQL ${m('with', 'pg').toFixed(2)}); ` +
        `without ${m('without', 'perSecond').toFixed(0)} writes/s, ${m('without', 'cpu').toFixed(2)} ms (PostgreSQL ${m('without', 'pg').toFixed(2)}); ` +
        `the BM25 index costs ${(m('with', 'cpu') - m('without', 'cpu')).toFixed(2)} ms CPU per write (${(m('with', 'pg') - m('without', 'pg')).toFixed(2)} in PostgreSQL) and ${((1 - m('with', 'perSecond') / m('without', 'perSecond')) * 100).toFixed(1)}% of the throughput`,
    );
  } finally {
    await knex.raw('alter table memories enable trigger memories_lexical_insert').catch(() => {});
    await knex.destroy();
    await t.stop();
  }
}

await main();
