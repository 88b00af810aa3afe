import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../src/index.ts';
import { maintenanceDue } from '../src/pglite-maintenance.ts';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The planner's row estimate of a full scan of t. */
async function estimatedRows(db: Database): Promise<number> {
  const { rows } = await db.knex.raw<{ rows: Record<string, string>[] }>('explain select * from t');
  return Number(/rows=(\d+)/.exec(Object.values(rows[0]!)[0]!)![1]);
}

/**
 * PGlite has no autovacuum: the embedded database analyses and vacuums its tables itself, so the
 * planner knows how many memories there are and dead rows are reclaimed.
 */
describe('PGlite table maintenance (what autovacuum does on PostgreSQL)', function () {
  this.timeout(120_000);

  it('uses autovacuum thresholds: analyse past 50 + 10% changed rows, vacuum past 50 + 20% dead', () => {
    const t = { relname: 't', n_live_tup: 1000, n_dead_tup: 0, n_mod_since_analyze: 0 };
    assert.equal(maintenanceDue(t), undefined);
    assert.equal(maintenanceDue({ ...t, n_mod_since_analyze: 151 }), 'analyze');
    assert.equal(maintenanceDue({ ...t, n_mod_since_analyze: 150 }), undefined);
    assert.equal(maintenanceDue({ ...t, n_dead_tup: '251', n_mod_since_analyze: 500 }), 'vacuum');
  });

  it('analyses a table that grew, so the planner estimates its rows, and reclaims the dead rows of updates', async () => {
    const db = await openDatabase({ dataDir: 'memory://', pgliteMaintenanceMs: 200 });
    try {
      await db.knex.raw('create table t (id int primary key, n int)');
      await db.knex.raw('insert into t select g, 0 from generate_series(1, 2000) g');
      const rows = await until('an estimate near 2,000 rows', async () => {
        const n = await estimatedRows(db);
        return n > 1500 && n < 2500 ? n : undefined;
      });
      assert.ok(rows > 1500, `the planner estimates ${rows} rows`);
      await db.knex.raw('update t set n = n + 1');
      await until('the dead rows of the update reclaimed', async () => {
        const { rows: s } = await db.knex.raw<{ rows: { n_dead_tup: number | string }[] }>(
          "select n_dead_tup from pg_stat_user_tables where relname = 't'",
        );
        return Number(s[0]!.n_dead_tup) === 0 ? true : undefined;
      });
    } finally {
      await db.close();
    }
  });

  it('with maintenance off nothing analyses a table: PGlite has no autovacuum of its own', async () => {
    const db = await openDatabase({ dataDir: 'memory://', pgliteMaintenanceMs: 0 });
    try {
      await db.knex.raw('create table t (id int primary key, n int)');
      await db.knex.raw('insert into t select g, 0 from generate_series(1, 2000) g');
      await new Promise((r) => setTimeout(r, 1000));
      const { rows } = await db.knex.raw<{ rows: { last_analyze: unknown }[] }>(
        "select last_analyze from pg_stat_user_tables where relname = 't'",
      );
      assert.equal(rows[0]!.last_analyze, null, 'never analysed');
    } finally {
      await db.close();
    }
  });
});
