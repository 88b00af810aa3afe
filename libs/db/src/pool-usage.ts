import type { Knex } from 'knex';
import type { Database } from './database.ts';

/** One connection pool now: what engram_db_pool_* report. */
export interface PoolUsage {
  readonly pool: 'primary' | 'read';
  readonly used: number;
  readonly free: number;
  readonly pending: number;
  readonly max: number;
}

/** The part of knex's (tarn) pool read here; knex does not type client.pool. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  readonly max: number;
}

function isTarnPool(v: unknown): v is TarnPool {
  const p = v as Partial<Record<keyof TarnPool, unknown>> | null | undefined;
  return (
    typeof p?.numUsed === 'function' &&
    typeof p.numFree === 'function' &&
    typeof p.numPendingAcquires === 'function' &&
    typeof p.max === 'number'
  );
}

function usageOf(knex: Knex, pool: PoolUsage['pool']): PoolUsage | undefined {
  const client: unknown = knex.client;
  const tarn = (client as { pool?: unknown } | null | undefined)?.pool;
  if (!isTarnPool(tarn)) return undefined; // destroyed (closed), or never initialized
  return {
    pool,
    used: tarn.numUsed(),
    free: tarn.numFree(),
    pending: tarn.numPendingAcquires(),
    max: tarn.max,
  };
}

/**
 * The connection pools of the database, read synchronously (no query): the primary, and the read
 * pool when it is a separate one (DATABASE_READ_URL). PGlite's is a pool of its one connection.
 */
export function poolUsage(db: Pick<Database, 'knex' | 'read'>): PoolUsage[] {
  const pools = [usageOf(db.knex, 'primary')];
  if (db.read !== db.knex) pools.push(usageOf(db.read, 'read'));
  return pools.filter((p): p is PoolUsage => p !== undefined);
}
