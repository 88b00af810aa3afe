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

/** The pids of the processes whose name (comm) starts with `prefix`, from /proc. */
export function pidsNamed(prefix: string, keep: (pid: number) => boolean = () => true): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith(prefix) && keep(Number(entry)))
        out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Which PostgreSQL processes count: on a server of its own (postmasterPid) every child of that
 * postmaster; on a shared server only the backends of the bench's databases (their title names the
 * database), so other users' work is not counted (nor the shared WAL writer and checkpointer).
 */
export interface PostgresScope {
  readonly postmasterPid?: number | undefined;
  readonly databases?: readonly string[] | undefined;
}

function postgresFilter(scope: PostgresScope | undefined): (pid: number) => boolean {
  if (scope?.postmasterPid !== undefined) {
    const pm = scope.postmasterPid;
    return (pid) => pid === pm || Number(read(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1]) === pm;
  }
  const dbs = scope?.databases;
  if (!dbs || dbs.length === 0) return () => true;
  return (pid) => {
    const title = read(`/proc/${pid}/cmdline`).replace(/\0/g, ' ');
    return dbs.some((d) => title.includes(` ${d} `));
  };
}

/**
 * Where the CPU of a load test goes, from /proc: each Engram process, every PostgreSQL process on the
 * machine (backends, WAL writer, checkpointer: the bench's database is the only busy one), nats-server
 * and the load generator itself. Linux only; elsewhere `available` is false and nothing is reported.
 */
export class CpuMeter {
  readonly available: boolean;

  private readonly isOurPostgres: (pid: number) => boolean;

  constructor(
    private readonly processes: ReadonlyMap<string, number>,
    postgres?: PostgresScope,
  ) {
    this.available = cpuMsOf(process.pid) !== undefined;
    this.isOurPostgres = postgresFilter(postgres);
  }

  /** CPU milliseconds so far of each PostgreSQL process that counts, by pid. */
  private postgresByPid(): Map<number, number> {
    return new Map(pidsNamed('postgres', this.isOurPostgres).map((pid) => [pid, cpuMsOf(pid) ?? 0]));
  }

  snapshot(): CpuSnapshot {
    const out: CpuSnapshot = {};
    for (const [name, pid] of this.processes) out[name] = cpuMsOf(pid) ?? 0;
    const sum = (pids: number[]) => pids.reduce((s, p) => s + (cpuMsOf(p) ?? 0), 0);
    out.postgres = [...this.postgresByPid().values()].reduce((s, v) => s + v, 0);
    out['nats-server'] = sum(pidsNamed('nats-server'));
    const own = process.cpuUsage();
    out['load generator'] = (own.user + own.system) / 1000;
    return out;
  }

  /**
   * Runs `work` and returns its result with the CPU milliseconds per operation of each process.
   * PostgreSQL's is summed backend by backend: a backend that started during the work counts from
   * zero, one that exited during it (a pool closing an idle connection) is left out, so the figure
   * is a lower bound rather than a difference of totals that such an exit would make negative.
   */
  async measure<T>(work: () => Promise<T>, operations: (r: T) => number): Promise<[T, CpuSnapshot]> {
    const pg0 = this.postgresByPid();
    const before = this.snapshot();
    const result = await work();
    const after = this.snapshot();
    const pg1 = this.postgresByPid();
    const n = Math.max(1, operations(result));
    const perOp: CpuSnapshot = {};
    for (const k of Object.keys(after)) perOp[k] = (after[k]! - (before[k] ?? 0)) / n;
    let pg = 0;
    for (const [pid, ms] of pg1) pg += ms - (pg0.get(pid) ?? 0);
    perOp.postgres = pg / n;
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
