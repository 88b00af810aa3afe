import type { Knex } from 'knex';
import type { KnexLogSink } from './knex-log.ts';

/** How often the tables' counters are read (autovacuum's naptime is 60 s; PGlite's tables are small). */
export const MAINTENANCE_INTERVAL_MS = 10_000;

interface TableCounters {
  relname: string;
  n_live_tup: number | string;
  n_dead_tup: number | string;
  n_mod_since_analyze: number | string;
}

/**
 * What each table needs now, by autovacuum's default thresholds: VACUUM (ANALYZE) once dead rows
 * pass 50 + 20% of the live ones, ANALYZE once changes since the last one pass 50 + 10%.
 */
export function maintenanceDue(t: TableCounters): 'vacuum' | 'analyze' | undefined {
  const live = Number(t.n_live_tup);
  if (Number(t.n_dead_tup) > 50 + 0.2 * live) return 'vacuum';
  if (Number(t.n_mod_since_analyze) > 50 + 0.1 * live) return 'analyze';
  return undefined;
}

/**
 * Autovacuum's work for PGlite, which has no background workers: without it no table is ever
 * analysed, so the planner estimates every table at one row (a query over 5,000 memories then took
 * 16 ms instead of 9), and no dead row is ever reclaimed (each published audit event leaves one).
 * Every interval the tables' counters are read and each table past a threshold is vacuumed or
 * analysed, one statement at a time on the one connection. Returns the stop function (awaits a
 * statement in flight).
 */
export function startPgliteMaintenance(
  knex: Knex,
  log: KnexLogSink,
  intervalMs = MAINTENANCE_INTERVAL_MS,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let warned = false;
  const tick = async () => {
    try {
      const { rows } = await knex.raw<{ rows: TableCounters[] }>(
        'select relname, n_live_tup, n_dead_tup, n_mod_since_analyze from pg_stat_user_tables',
      );
      for (const t of rows) {
        if (stopped) return;
        const due = maintenanceDue(t);
        if (due === 'vacuum') await knex.raw('vacuum (analyze) ??', [t.relname]);
        else if (due === 'analyze') await knex.raw('analyze ??', [t.relname]);
      }
    } catch (err) {
      // A closed or failing database: the next tick tries again; said once, without values.
      if (!stopped && !warned) {
        warned = true;
        log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'embedded table maintenance failed',
        );
      }
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick);
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
