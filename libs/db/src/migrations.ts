import type { Knex } from 'knex';
import type { Database } from './database.ts';

/** One schema change, with its inverse. Names sort in the order they apply (timestamp prefix). */
export interface Migration {
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** A named set of migrations owned by one service (its own bookkeeping table). */
export interface MigrationSet {
  /** e.g. memory_store; the bookkeeping table is knex_migrations_<owner>. */
  readonly owner: string;
  readonly migrations: readonly Migration[];
}

function source(set: MigrationSet): Knex.MigrationSource<Migration> {
  return {
    getMigrations: () => Promise.resolve([...set.migrations].sort((a, b) => a.name.localeCompare(b.name))),
    getMigrationName: (m) => m.name,
    getMigration: (m) => Promise.resolve({ up: (k: Knex) => m.up(k), down: (k: Knex) => m.down(k) }),
  };
}

function config(set: MigrationSet): Knex.MigratorConfig {
  return {
    migrationSource: source(set),
    tableName: `knex_migrations_${set.owner}`,
    disableMigrationsListValidation: true,
  };
}

/** Stable 31-bit key for pg_advisory_lock, from the owner name. */
function lockKey(owner: string): number {
  let h = 7;
  for (const ch of owner) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return Math.abs(h);
}

/**
 * Applies every pending migration of the set. On PostgreSQL the run holds an advisory lock, so many
 * replicas of a service may start at once; PGlite has a single connection and needs none.
 */
export async function migrateLatest(db: Database, set: MigrationSet): Promise<string[]> {
  if (db.engine === 'pglite') {
    const [, applied] = (await db.knex.migrate.latest(config(set))) as [number, string[]];
    return applied;
  }
  const key = lockKey(set.owner);
  // Without the query timeout: an index build, or the wait for another replica's lock, may be long.
  const knex = db.unbounded ?? db.knex;
  // The lock belongs to one session, so it is taken on one pool connection held for the whole run.
  const pool = knex.client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(c: unknown): Promise<void>;
  };
  const conn = await pool.acquireConnection();
  try {
    await knex.raw('select pg_advisory_lock(?)', [key]).connection(conn);
    const [, applied] = (await knex.migrate.latest(config(set))) as [number, string[]];
    return applied;
  } finally {
    await knex.raw('select pg_advisory_unlock(?)', [key]).connection(conn);
    await pool.releaseConnection(conn);
  }
}

/** Rolls back every migration of the set (tests prove each `down`). */
export async function migrateRollbackAll(db: Database, set: MigrationSet): Promise<string[]> {
  const knex = db.unbounded ?? db.knex;
  const [, reverted] = (await knex.migrate.rollback(config(set), true)) as [number, string[]];
  return reverted;
}
