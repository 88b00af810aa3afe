import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { traceKnexQueries } from '@engram/telemetry';
import { knexLog, type KnexLogSink } from './knex-log.ts';
import { MAINTENANCE_INTERVAL_MS, startPgliteMaintenance } from './pglite-maintenance.ts';
import { PGliteThread, type PGliteLike } from './pglite-thread.ts';

export type Engine = 'postgres' | 'pglite';

/**
 * Whether a vector is bound in pgvector's binary form on this engine (vectorParam's `binary`):
 * node-postgres sends a Buffer parameter in binary format, PGlite's client sends every parameter as
 * text. The one place that knows it, for every statement that binds a vector.
 */
export function bindsBinaryVectors(engine: Engine): boolean {
  return engine === 'postgres';
}

/** The data-access handle of one process: the primary, and the connection reads may use. */
export interface Database {
  readonly engine: Engine;
  /** The primary: every write, every audit event. */
  readonly knex: Knex;
  /** Reads that tolerate replica lag; the primary when no DATABASE_READ_URL is set. */
  readonly read: Knex;
  /**
   * The primary without the query timeout, for migrations (an index build, a wait for another
   * replica's migration lock); absent when there is no timeout to lift (PGlite, or none set).
   */
  readonly unbounded?: Knex;
  /**
   * hnsw.ef_search of every session: the store's pinned value once known (setHnswEfSearch), until
   * then the one the database was opened with.
   */
  readonly hnswEfSearch: number;
  /**
   * Moves every session to another hnsw.ef_search: new connections start at it, and a pooled
   * connection made earlier is brought to it (one SET) the next time it is handed out.
   */
  setHnswEfSearch(ef: number): Promise<void>;
  /** True when the last ping succeeded; drives the health status. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent, PGlite in dataDir. */
  readonly url?: string | undefined;
  readonly readUrl?: string | undefined;
  /** PGlite data directory; "memory://" keeps it in memory (tests). */
  readonly dataDir?: string;
  readonly poolMax?: number;
  /** hnsw.ef_search of every session until setHnswEfSearch; default DEFAULT_HNSW_EF_SEARCH. */
  readonly hnswEfSearch?: number | undefined;
  /** PostgreSQL only; each undefined or 0 means none. See DATABASE_TIMEOUTS for what they bound. */
  readonly timeouts?: DatabaseTimeouts;
  /** Where knex's own warnings go (one line, no stack, no values); stderr when absent. */
  readonly log?: KnexLogSink;
  /** PGlite on a worker thread of its own (PGLITE_WORKER); default true (false: on the caller's thread). */
  readonly pgliteWorker?: boolean;
  /** PGlite: how often tables past autovacuum's thresholds are vacuumed or analysed (0: never). */
  readonly pgliteMaintenanceMs?: number;
}

const STDERR_SINK: KnexLogSink = {
  warn: (_obj, msg) => process.stderr.write(`knex: ${msg}\n`),
  error: (_obj, msg) => process.stderr.write(`knex: ${msg}\n`),
};

/**
 * How long one process waits on PostgreSQL before it answers 503 DEPENDENCY_UNAVAILABLE, so that a
 * database that is down, restarting or not answering (a hung host, a network partition) is a bounded
 * wait for the client and never a hang (docs/decisions.md):
 * - connectMs: a new connection (TCP connect and startup) must be ready within it;
 * - acquireMs: a request waits at most this long for a free pool connection;
 * - queryMs: one statement's answer must arrive within it (client side: node-postgres gives up and
 *   dropOnReadTimeout closes the connection); the server cancels the statement at the same bound
 *   (statement_timeout), so it does not keep working, or holding locks, for a client that left.
 */
export interface DatabaseTimeouts {
  readonly connectMs?: number | undefined;
  readonly acquireMs?: number | undefined;
  readonly queryMs?: number | undefined;
}

/**
 * hnsw.ef_search of a session before the store's pinned value is known (a process opens the
 * database before it reads the pin); a search that needs a longer candidate list sets its own.
 */
export const DEFAULT_HNSW_EF_SEARCH = 200;

/**
 * Settings of every database session, applied once per connection rather than per query:
 * - iterative HNSW scans (pgvector >= 0.8), so a filtered vector search still fills its LIMIT;
 * - the default HNSW candidate list, so the common search runs as one statement without a
 *   transaction around `set local` (docs/decisions.md);
 * - no JIT: Engram's statements are short OLTP queries, where compiling costs more than it saves.
 * Requires session-level state, i.e. a direct connection or a pooler in session mode.
 */
export function sessionSettingsSql(hnswEfSearch: number): string {
  return `set hnsw.iterative_scan = 'relaxed_order'; set hnsw.ef_search = ${Math.trunc(hnswEfSearch)}; set jit = off`;
}

/**
 * Runs `work` on the read connection with hnsw.ef_search = ef: as it is when ef is the session default
 * (one statement, no transaction), else in a transaction that raises or lowers it for itself only.
 */
export function withHnswEfSearch<T>(
  db: Pick<Database, 'read' | 'hnswEfSearch'>,
  ef: number,
  work: (q: Knex) => Promise<T>,
): Promise<T> {
  if (ef === db.hnswEfSearch) return work(db.read);
  return db.read.transaction(async (trx) => {
    await trx.raw(`select set_config('hnsw.ef_search', ?, true)`, [String(ef)]);
    return work(trx);
  });
}

function checkEf(ef: number): void {
  if (!Number.isInteger(ef) || ef < 1 || ef > 1000)
    throw new RangeError('hnswEfSearch must be an integer from 1 to 1000 (pgvector hnsw.ef_search)');
}

/** The part of a node-postgres client the pool hooks use. */
interface PgConnection {
  query(sql: unknown, cb: (err: Error | null, res?: unknown) => void): void;
  /** The hnsw.ef_search this session runs at (set by afterCreate and by acquireConnection). */
  engramEfSearch?: number;
  /** Set by knex when the connection failed: the pool destroys it instead of handing it out. */
  __knex__disposed?: unknown;
  readonly connection?: { readonly stream?: { destroy(): void } };
}

/** node-postgres's error when a statement's answer did not arrive within query_timeout. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * Takes a connection whose statement timed out on the client out of service for good. node-postgres
 * gives up on the statement but keeps the connection, still waiting for the answer, and a ROLLBACK
 * sent after it times out in turn and is never sent: the next statement on that connection would run
 * inside the abandoned transaction and be lost with it after being answered as done. Closing the
 * socket makes PostgreSQL roll that transaction back, and the pool destroys the connection.
 */
function dropOnReadTimeout(conn: PgConnection): void {
  const query = conn.query.bind(conn) as (...args: unknown[]) => unknown;
  conn.query = (...args: unknown[]) => {
    const cb = args.at(-1);
    if (typeof cb !== 'function') return query(...args);
    return query(...args.slice(0, -1), (err: Error | null, res?: unknown) => {
      if (err?.message === READ_TIMEOUT) {
        conn.__knex__disposed = err;
        conn.connection?.stream?.destroy();
      }
      (cb as (err: Error | null, res?: unknown) => void)(err, res);
    });
  };
}

/**
 * A pg knex whose sessions start with `settings()` (plus the statement timeout) and run at `ef()`:
 * every connection handed out (to a query or a transaction) is first brought to the current
 * ef_search when it was made at another one. One number compared per query; one SET per connection
 * after a change.
 */
function pgKnex(
  url: string,
  poolMax: number,
  settings: () => string,
  ef: () => number,
  timeouts: DatabaseTimeouts = {},
  log: ReturnType<typeof knexLog> = knexLog(STDERR_SINK),
): Knex {
  const { connectMs, acquireMs, queryMs } = timeouts;
  const sessionSettings = () =>
    queryMs ? `${settings()}; set statement_timeout = ${Math.trunc(queryMs)}` : settings();
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      ...(connectMs ? { connectionTimeoutMillis: connectMs } : {}),
      ...(queryMs ? { query_timeout: queryMs } : {}),
      // Dead peers (a host gone without a FIN) are found by TCP keepalive rather than never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
    pool: {
      min: 0,
      max: poolMax,
      afterCreate(conn: PgConnection, done: (err: Error | null, conn: unknown) => void) {
        if (queryMs) dropOnReadTimeout(conn);
        const at = ef();
        conn.query(sessionSettings(), (err) => {
          if (!err) conn.engramEfSearch = at;
          done(err, conn);
        });
      },
    },
    acquireConnectionTimeout: acquireMs || 10_000,
    log,
  });
  const client = knex.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(conn: PgConnection): Promise<unknown>;
  };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    const conn = await acquire();
    const want = ef();
    if (conn.engramEfSearch === want) return conn;
    try {
      await new Promise<void>((resolve, reject) =>
        conn.query(`set hnsw.ef_search = ${Math.trunc(want)}`, (err) => (err ? reject(err) : resolve())),
      );
      conn.engramEfSearch = want;
      return conn;
    } catch (err) {
      await client.releaseConnection(conn);
      throw err;
    }
  };
  return knex;
}

/** PGlite with pgvector on this thread (PGLITE_WORKER=false). */
async function pgliteHere(dataDir: string): Promise<PGliteLike> {
  const [{ PGlite }, { vector }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
  ]);
  return PGlite.create({ dataDir, extensions: { vector } });
}

async function pgliteKnex(
  dataDir: string,
  settings: string,
  log: KnexLogSink,
  thread: boolean,
  maintenanceMs: number,
): Promise<{ knex: Knex; exec: (sql: string) => Promise<unknown>; close: () => Promise<void> }> {
  const clientModule = await import('knex-pglite');
  const onDisk = !dataDir.startsWith('memory://');
  let pglite: PGliteLike;
  try {
    if (onDisk) mkdirSync(dataDir, { recursive: true });
    pglite = thread ? await PGliteThread.open(dataDir) : await pgliteHere(dataDir);
  } catch (err) {
    const problem = onDisk ? dataDirProblem(dataDir) : undefined;
    if (problem === undefined) throw err;
    throw new DataDirectoryError(dataDir, problem, err);
  }
  await pglite.exec(settings);
  const ClientPgLite = (clientModule as unknown as { default: Knex.Config['client'] }).default;
  const knex = knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
    log: knexLog(log),
  } as Knex.Config);
  const stopMaintenance = maintenanceMs > 0 ? startPgliteMaintenance(knex, log, maintenanceMs) : undefined;
  return {
    knex,
    exec: (sql) => pglite.exec(sql),
    close: async () => {
      await stopMaintenance?.();
      await knex.destroy(); // the dialect closes its PGlite connection
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** The embedded data directory cannot be used: full, read-only or not writable. */
export class DataDirectoryError extends Error {
  override readonly name = 'DataDirectoryError';
  constructor(
    readonly dataDir: string,
    readonly problem: string,
    cause: unknown,
  ) {
    super(
      `the data directory ${dataDir} ${problem}, so the embedded database cannot open it; nothing in it ` +
        'was changed: fix that and start again',
      { cause },
    );
  }
}

/** What a write needs to find free in the data directory (a WAL segment is 16 MiB). */
const MIN_FREE_BYTES = 16 * 1024 * 1024;
const PROBE_BYTES = 1024 * 1024;

/**
 * Why PGlite could not open its data directory, when the directory is the reason: a probe write of
 * 1 MiB (removed again) fails with no space, a read-only file system or no permission, or less than
 * a WAL segment is free. PGlite itself reports only that it failed to initialize.
 */
function dataDirProblem(dataDir: string): string | undefined {
  const probe = join(dataDir, `.engram-write-probe-${process.pid}`);
  try {
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(PROBE_BYTES));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
  } catch (err) {
    try {
      rmSync(probe, { force: true });
    } catch {
      // not there, or not removable on a read-only file system: nothing was written then
    }
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return 'is full (no space left on its file system)';
    if (code === 'EROFS') return 'is on a read-only file system';
    if (code === 'EACCES' || code === 'EPERM') return 'is not writable by this process';
    return undefined;
  }
  const { bavail, bsize } = statfsSync(dataDir);
  const free = bavail * bsize;
  if (free < MIN_FREE_BYTES) return `has only ${Math.floor(free / 1024)} KiB free`;
  return undefined;
}

/**
 * Opens the primary (and read) connection; PGlite when no URL is given. While tracing is on, each
 * query made within a trace is a span (operation only: no statement, no values).
 */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const poolMax = opts.poolMax ?? 10;
  let hnswEfSearch = opts.hnswEfSearch ?? DEFAULT_HNSW_EF_SEARCH;
  checkEf(hnswEfSearch);
  const settings = () => sessionSettingsSql(hnswEfSearch);
  if (opts.url) {
    const timeouts = opts.timeouts ?? {};
    const ef = () => hnswEfSearch;
    // One log for the process's pools: a repeat is a repeat whichever pool saw it.
    const log = knexLog(opts.log ?? STDERR_SINK);
    const primary = pgKnex(opts.url, poolMax, settings, ef, timeouts, log);
    const read = opts.readUrl ? pgKnex(opts.readUrl, poolMax, settings, ef, timeouts, log) : primary;
    const unbounded = timeouts.queryMs ? pgKnex(opts.url, 2, settings, ef, {}, log) : undefined;
    traceKnexQueries(primary);
    traceKnexQueries(read);
    return {
      engine: 'postgres',
      knex: primary,
      read,
      ...(unbounded ? { unbounded } : {}),
      get hnswEfSearch() {
        return hnswEfSearch;
      },
      setHnswEfSearch: (value) => {
        checkEf(value);
        hnswEfSearch = value;
        return Promise.resolve();
      },
      ping: () => pingKnex(primary),
      close: async () => {
        if (read !== primary) await read.destroy();
        await unbounded?.destroy();
        await primary.destroy();
      },
    };
  }
  const lite = await pgliteKnex(
    opts.dataDir ?? './data/pglite',
    settings(),
    opts.log ?? STDERR_SINK,
    opts.pgliteWorker ?? true,
    opts.pgliteMaintenanceMs ?? MAINTENANCE_INTERVAL_MS,
  );
  traceKnexQueries(lite.knex); // PGlite is PostgreSQL: db.system.name stays postgresql
  return {
    engine: 'pglite',
    knex: lite.knex,
    read: lite.knex,
    get hnswEfSearch() {
      return hnswEfSearch;
    },
    // PGlite is one session: set it there.
    setHnswEfSearch: async (value) => {
      checkEf(value);
      if (value === hnswEfSearch) return;
      await lite.exec(`set hnsw.ef_search = ${Math.trunc(value)}`);
      hnswEfSearch = value;
    },
    ping: () => pingKnex(lite.knex),
    close: lite.close,
  };
}

async function pingKnex(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}
