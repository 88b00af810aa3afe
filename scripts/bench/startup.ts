/**
 * `make bench-startup`: start time and resident memory of the embedded process (`make start`'s), run
 * from the TypeScript sources through tsx (how it ran before `make build`) and from the compiled
 * JavaScript (how it runs now). For each: ROUNDS starts on a fresh data directory (migrations, key
 * generation) and ROUNDS restarts on an existing one; time from spawn to the first 200 of GET /readyz,
 * resident set size (VmRSS) when ready and after WORK adds + WORK queries, and peak (VmHWM).
 * Replaces the bench:startup section of docs/benchmarks.md.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, compiledEntry, freePort, ManagedProcess, REPO_ROOT } from '@engram/testing';
import { writeBenchSection } from './bench-section.ts';
import { median } from './retrieval/stats.ts';

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);
const WORK = 200;

interface Mode {
  readonly name: string;
  readonly args: string[];
}

const MODES: Mode[] = [
  {
    name: 'TypeScript through tsx (before)',
    args: ['--import', 'tsx', '--conditions=engram-source', 'services/all-in-one/src/main.ts'],
  },
  { name: 'compiled JavaScript (`make start`)', args: compiledEntry('services/all-in-one', 'main') },
];

interface Sample {
  readyMs: number;
  rssReadyMb: number;
  rssAfterMb: number;
  hwmMb: number;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function once(mode: Mode, dataDir: string): Promise<Sample> {
  const http = await freePort();
  const key = `egk_bench_${'k'.repeat(40)}`;
  const started = performance.now();
  const proc = ManagedProcess.spawn(
    'engram',
    process.execPath,
    mode.args,
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_HTTP_PORT: String(http),
      ENGRAM_GRPC_PORT: String(await freePort()),
      SERVICE_API_KEY: key,
      EMBEDDING_PROVIDER: 'hash',
      LOG_LEVEL: 'warn',
    },
    REPO_ROOT,
  );
  const base = `http://127.0.0.1:${http}`;
  try {
    for (;;) {
      if (!proc.running) throw new Error(`exited before ready:\n${proc.tail()}`);
      const ok = await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (performance.now() - started > 120_000) throw new Error('not ready in 120 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const readyMs = performance.now() - started;
    const pid = proc.child.pid!;
    const rssReadyMb = statusMb(pid, 'VmRSS');
    const api = new ApiClient(base, key);
    for (let i = 0; i < WORK; i++) {
      await api.post('/memories/add', {
        content: `startup bench note ${i} about topic ${i % 17}`,
        agent_id: 'bench',
      });
      await api.post('/memories/query', { query: `topic ${i % 17}`, agent_id: 'bench', top_k: 5 });
    }
    return { readyMs, rssReadyMb, rssAfterMb: statusMb(pid, 'VmRSS'), hwmMb: statusMb(pid, 'VmHWM') };
  } finally {
    await proc.stop();
  }
}

const fmt = (x: number, digits = 0) => x.toFixed(digits);

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const kind of ['fresh data directory', 'existing data directory'] as const) {
    // The modes alternate within each round, so that whatever else the machine does weighs on both.
    const samples = new Map<Mode, Sample[]>(MODES.map((m) => [m, []]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const mode of MODES) {
        const dir = mkdtempSync(join(tmpdir(), 'engram-startup-'));
        try {
          if (kind === 'existing data directory') await once(mode, dir);
          samples.get(mode)!.push(await once(mode, dir));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    for (const mode of MODES) {
      const s = samples.get(mode)!;
      const ready = s.map((x) => x.readyMs).sort((a, b) => a - b);
      rows.push(
        `| ${mode.name} | ${kind} | ${fmt(median(ready))} | ${fmt(ready[ready.length - 1]!)} | ${fmt(median(s.map((x) => x.rssReadyMb)))} | ${fmt(median(s.map((x) => x.rssAfterMb)))} | ${fmt(median(s.map((x) => x.hwmMb)))} |`,
      );
      process.stderr.write(`${rows[rows.length - 1]}\n`);
    }
  }
  const body = [
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${ROUNDS} starts per row (median, and the slowest), \`make bench-startup\`. Ready = spawn to the first 200 of GET /readyz; RSS when ready, after ${WORK} adds + ${WORK} queries, and the peak (VmHWM). hash embedder, PGlite.`,
    '',
    '| process | start on | ready p50 ms | ready max ms | RSS ready MB | RSS after work MB | peak RSS MB |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  writeBenchSection('startup', body);
  process.stdout.write(body + '\n');
}

await main();
