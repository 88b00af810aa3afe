import { mkdirSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';

export type Engine = 'postgres' | 'pglite';

/** The data-access handle of one process: the primary, and the connection reads may use. */
export interface Database {
  readonly engine: Engine;
  /** The primary: every write, every audit event. */
  readonly knex: Knex;
  /** Reads that tolerate replica lag; the primary when no DATABASE_READ_URL is set. */
  readonly read: Knex;
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
}

function pgKnex(url: string, poolMax: number): Knex {
  return knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

async function pgliteKnex(dataDir: string): Promise<{ knex: Knex; close: () => Promise<void> }> {
  const [{ PGlite }, { vector }, clientModule] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('knex-pglite'),
  ]);
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create({ dataDir, extensions: { vector } });
  const ClientPgLite = (clientModule as unknown as { default: Knex.Config['client'] }).default;
  const knex = knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
  } as Knex.Config);
  return {
    knex,
    close: async () => {
      await knex.destroy(); // the dialect closes its PGlite connection
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Opens the primary (and read) connection; PGlite when no URL is given. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const poolMax = opts.poolMax ?? 10;
  if (opts.url) {
    const primary = pgKnex(opts.url, poolMax);
    const read = opts.readUrl ? pgKnex(opts.readUrl, poolMax) : primary;
    return {
      engine: 'postgres',
      knex: primary,
      read,
      ping: () => pingKnex(primary),
      close: async () => {
        if (read !== primary) await read.destroy();
        await primary.destroy();
      },
    };
  }
  const lite = await pgliteKnex(opts.dataDir ?? './data/pglite');
  return {
    engine: 'pglite',
    knex: lite.knex,
    read: lite.knex,
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
