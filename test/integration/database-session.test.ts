import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { SESSION_HNSW_EF_SEARCH, withHnswEfSearch, type Database } from '@engram/db';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

const show = async (db: Database, name: string) => {
  const res: { rows: Record<string, string>[] } = await db.knex.raw(`select current_setting(?, true) as v`, [
    name,
  ]);
  return res.rows[0]?.v;
};

for (const engine of ENGINES) {
  describe(`database sessions (${engine})`, function () {
    this.timeout(60_000);
    let db: Database;
    let store: EngineDatabase | undefined;
    before(async () => {
      store = await openEngineDatabase(engine, { poolMax: 3 });
      db = store.db;
    });
    after(async () => {
      await store?.close();
    });

    it('starts every connection with iterative HNSW scans, the default ef_search and no JIT', async () => {
      // Several connections at once, so the settings are not a property of the first one only.
      const seen = await Promise.all(
        [1, 2, 3].map(() =>
          db.knex.transaction(async (trx) => {
            const res: { rows: { scan: string; ef: string; jit: string; slept?: string }[] } = await trx.raw(
              `select current_setting('hnsw.iterative_scan', true) as scan,
                      current_setting('hnsw.ef_search', true) as ef, current_setting('jit') as jit,
                      pg_sleep(0.05)::text as slept`,
            );
            const { scan, ef, jit } = res.rows[0]!;
            return { scan, ef, jit };
          }),
        ),
      );
      for (const s of seen)
        assert.deepEqual(s, { scan: 'relaxed_order', ef: String(SESSION_HNSW_EF_SEARCH), jit: 'off' });
    });

    it('runs a search at another ef_search for itself only, and at the default without a transaction', async () => {
      const efIn = async (q: Knex) => {
        const res: { rows: { v: string }[] } = await q.raw(`select current_setting('hnsw.ef_search') as v`);
        return res.rows[0]?.v;
      };
      for (const ef of [40, 400]) {
        assert.equal(await withHnswEfSearch(db.knex, ef, efIn), String(ef));
        assert.equal(await show(db, 'hnsw.ef_search'), String(SESSION_HNSW_EF_SEARCH));
      }
      assert.equal(
        await withHnswEfSearch(db.knex, SESSION_HNSW_EF_SEARCH, efIn),
        String(SESSION_HNSW_EF_SEARCH),
      );
      // The default needs no transaction: the work runs on the pool itself.
      const onPool = await withHnswEfSearch(db.knex, SESSION_HNSW_EF_SEARCH, (q) =>
        Promise.resolve(q === db.knex),
      );
      assert.equal(onPool, true);
    });
  });
}
