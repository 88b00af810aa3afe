/**
 * The database of the verbs that work on it directly (backfill-integrity, reembed): DATABASE_URL, else
 * the embedded PGlite store in ENGRAM_DATA_DIR (the service stopped: PGlite allows one process).
 */
import { join } from 'node:path';
import type { EngramConfig } from '@engram/config';
import { openDatabase, type Database } from '@engram/db';

export async function openStore(config: EngramConfig): Promise<Database> {
  quietAcquireWarnings();
  return openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, 'pglite'), poolMax: 2 });
}

/**
 * knex prints a failed connection attempt, stack and all, through console.log (on stdout, where the
 * output of a verb goes) before it rejects the query; the CLI reports that rejection itself, as one
 * line on stderr with exit status 3.
 */
function quietAcquireWarnings(): void {
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('Acquire connection error')) return;
    log(...args);
  };
}
