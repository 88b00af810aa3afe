import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ManagedProcess } from './child-process.ts';
import { freePort } from './free-port.ts';

const BIN_DIR = process.env.ENGRAM_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * initdb refuses to run as root: as root the cluster belongs to an unprivileged account (`postgres`,
 * which the PostgreSQL package creates); otherwise to the current user.
 */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const out = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (out.status !== 0 || gid.status !== 0)
    throw new Error('running as root needs an unprivileged `postgres` account for initdb');
  return { uid: Number(out.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * A PostgreSQL server of the test's own: a fresh cluster in a temporary directory on a free port,
 * with pgvector available (the system's extension directory). It can be stopped (fast, or immediate:
 * a crash, recovered from WAL at the next start) and started again on the same port and data, without
 * touching the machine's shared server. remove() stops it and deletes the directory.
 */
export class PrivatePostgres {
  private proc: ManagedProcess | undefined;
  private readonly owner = clusterOwner();

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'engram-pg-'));
    const server = new PrivatePostgres(dir, await freePort());
    if (server.owner) chownSync(dir, server.owner.uid, server.owner.gid);
    const init = spawnSync(
      join(BIN_DIR, 'initdb'),
      ['-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions'],
      { encoding: 'utf8', ...server.owner, timeout: 60_000 },
    );
    if (init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`initdb failed: ${init.stderr}`);
    }
    await server.start();
    return server;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** The admin URL of a database on this server. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.proc?.running ?? false;
  }

  /** Starts the server (again) and waits until it accepts queries. */
  async start(timeoutMs = 30_000): Promise<void> {
    const child = spawn(
      join(BIN_DIR, 'postgres'),
      [
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        '-k',
        this.dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
        '-c',
        'shared_buffers=32MB',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...this.owner },
    );
    this.proc = new ManagedProcess(`postgres:${this.port}`, child);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.proc.running) throw new Error(`postgres exited at start\n${this.proc.tail()}`);
      const c = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('select 1');
        return;
      } catch {
        // starting up, or recovering
      } finally {
        await c.end().catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`postgres not ready in ${timeoutMs} ms\n${this.proc.tail()}`);
  }

  /**
   * Stops the server: 'fast' (SIGINT: clients disconnected, clean checkpoint) or 'immediate'
   * (SIGQUIT: no checkpoint, as after a crash; the next start replays the WAL).
   */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    const proc = this.proc;
    if (!proc?.running) return;
    this.thaw();
    const exited = new Promise<void>((resolve) => proc.child.once('close', () => resolve()));
    proc.child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Freezes the server (SIGSTOP to the postmaster and every backend): its port still accepts TCP
   * connections but nothing answers, as with a hung host or a network partition. thaw() resumes it.
   */
  freeze(): void {
    this.signalAll('SIGSTOP');
  }

  thaw(): void {
    this.signalAll('SIGCONT');
  }

  private signalAll(signal: NodeJS.Signals): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch (err) {
        // A backend that ended between the listing and the signal
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
  }

  /** The postmaster and its children (from /proc). */
  private pids(): number[] {
    const root = this.proc?.child.pid;
    if (root === undefined || !this.running) return [];
    const out = [root];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === root) out.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return out;
  }

  /** Creates a database with the vector extension; returns its URL. */
  async createDatabase(name: string): Promise<string> {
    await this.query(`create database ${name}`);
    const c = new pg.Client({ connectionString: this.url(name) });
    await c.connect();
    try {
      await c.query('create extension if not exists vector');
    } finally {
      await c.end();
    }
    return this.url(name);
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    values?: unknown[],
    database = 'postgres',
  ): Promise<R[]> {
    const c = new pg.Client({ connectionString: this.url(database) });
    await c.connect();
    try {
      return (await c.query<R>(sql, values)).rows;
    } finally {
      await c.end();
    }
  }

  tail(): string {
    return this.proc?.tail() ?? '';
  }

  async remove(): Promise<void> {
    await this.stop('immediate');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
