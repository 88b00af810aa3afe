import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '@engram/db';
import type { TestEngine } from './engines.ts';
import { freshPgliteDir } from './pglite-template.ts';
import { createTestDatabase } from './postgres.ts';

export interface EngineDatabase {
  readonly db: Database;
  /** The PostgreSQL database's URL (undefined on PGlite). */
  readonly url: string | undefined;
  /** Closes the connection and drops the PostgreSQL database. */
  close(): Promise<void>;
}

/** A fresh, empty database on the engine: a new PostgreSQL database or a new PGlite cluster. */
export async function openEngineDatabase(
  engine: TestEngine,
  options: { poolMax?: number } = {},
): Promise<EngineDatabase> {
  const pg = engine === 'postgres' ? await createTestDatabase() : undefined;
  const dir = pg ? undefined : await freshPgliteDir(mkdtempSync(join(tmpdir(), 'engram-pglite-')));
  const db = await openDatabase(pg ? { url: pg.url, ...options } : { dataDir: dir! });
  return {
    db,
    url: pg?.url,
    close: async () => {
      await db.close();
      await pg?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
