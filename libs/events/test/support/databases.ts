import pg from 'pg';
import { migrateLatest, openDatabase, type Database } from '@engram/db';
import { eventsMigrations } from '../../src/index.ts';

/** The machine's PostgreSQL (trust auth); tests use their own database in it. */
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_DATABASE = 'engram_events_test';
export const TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${TEST_DATABASE}`;

/** Creates the dedicated test database when it does not exist yet. */
export async function ensureTestDatabase(): Promise<string> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [TEST_DATABASE]);
    if (!rowCount) {
      try {
        await client.query(`create database ${TEST_DATABASE}`);
      } catch (err) {
        if ((err as { code?: string }).code !== '42P04') throw err; // created concurrently
      }
    }
  } finally {
    await client.end();
  }
  return TEST_DATABASE_URL;
}

export type EngineName = 'postgres' | 'pglite';
export const ENGINES: readonly EngineName[] = ['pglite', 'postgres'];

/** A database of the engine with audit_events migrated and empty. */
export async function openMigrated(engine: EngineName): Promise<Database> {
  const db =
    engine === 'postgres'
      ? await openDatabase({ url: await ensureTestDatabase(), poolMax: 5 })
      : await openDatabase({ dataDir: 'memory://' });
  await migrateLatest(db, eventsMigrations);
  await db.knex.raw('truncate audit_events');
  return db;
}
