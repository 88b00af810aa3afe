import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds used so far, per process group name. */
export type CpuSnapshot = Record<string, number>;

/** Linux clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm) ": state is the 1st, utime the 12th and stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined; // exited, or no /proc
  }
}

function pidsNamed(prefix: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith(prefix)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Where the CPU of a load test goes, from /proc: each Engram process, every PostgreSQL process on the
 * machine (backends, WAL writer, checkpointer: the bench's database is the only busy one), nats-server
 * and the load generator itself. Linux only; elsewhere `available` is false and nothing is reported.
 */
export class CpuMeter {
  readonly available: boolean;

  constructor(private readonly processes: ReadonlyMap<string, number>) {
    this.available = cpuMsOf(process.pid) !== undefined;
  }

  snapshot(): CpuSnapshot {
    const out: CpuSnapshot = {};
    for (const [name, pid] of this.processes) out[name] = cpuMsOf(pid) ?? 0;
    const sum = (pids: number[]) => pids.reduce((s, p) => s + (cpuMsOf(p) ?? 0), 0);
    out.postgres = sum(pidsNamed('postgres'));
    out['nats-server'] = sum(pidsNamed('nats-server'));
    const own = process.cpuUsage();
    out['load generator'] = (own.user + own.system) / 1000;
    return out;
  }

  /** Runs `work` and returns its result with the CPU milliseconds per operation of each process. */
  async measure<T>(work: () => Promise<T>, operations: (r: T) => number): Promise<[T, CpuSnapshot]> {
    const before = this.snapshot();
    const result = await work();
    const after = this.snapshot();
    const n = Math.max(1, operations(result));
    const perOp: CpuSnapshot = {};
    for (const k of Object.keys(after)) perOp[k] = (after[k]! - (before[k] ?? 0)) / n;
    return [result, perOp];
  }
}

/** "postgres 3.70, memory-store 1.12, ... = 7.02 ms" with the largest first; processes under 0.05 ms are left out. */
export function cpuLine(perOp: CpuSnapshot): string {
  const entries = Object.entries(perOp).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((s, [, v]) => s + v, 0);
  const shown = entries.filter(([, v]) => v >= 0.05).map(([k, v]) => `${k} ${v.toFixed(2)}`);
  return `${shown.join(', ')}; total ${total.toFixed(2)} ms`;
}
