import { openDatabase, type Database } from '@engram/db';
import type { TestEngine } from './engines.ts';
import { createTestDatabase } from './postgres.ts';

export interface EngineDatabase {
  readonly db: Database;
  /** The PostgreSQL database's URL (undefined on PGlite). */
  readonly url: string | undefined;
  /** Closes the connection and drops the PostgreSQL database. */
  close(): Promise<void>;
}

/** A fresh, empty database on the engine: a new PostgreSQL database or an in-memory PGlite. */
export async function openEngineDatabase(
  engine: TestEngine,
  options: { poolMax?: number } = {},
): Promise<EngineDatabase> {
  const pg = engine === 'postgres' ? await createTestDatabase() : undefined;
  const db = await openDatabase(pg ? { url: pg.url, ...options } : { dataDir: 'memory://' });
  return {
    db,
    url: pg?.url,
    close: async () => {
      await db.close();
      await pg?.drop();
    },
  };
}
