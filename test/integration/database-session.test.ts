import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { DEFAULT_HNSW_EF_SEARCH, openDatabase, withHnswEfSearch, type Database } from '@engram/db';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';
import { startTestEngram } from '@engram/all-in-one/testing';

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
        assert.deepEqual(s, { scan: 'relaxed_order', ef: String(DEFAULT_HNSW_EF_SEARCH), jit: 'off' });
    });

    it('runs a search at another ef_search for itself only, and at the default without a transaction', async () => {
      const efIn = async (q: Knex) => {
        const res: { rows: { v: string }[] } = await q.raw(`select current_setting('hnsw.ef_search') as v`);
        return res.rows[0]?.v;
      };
      for (const ef of [40, 400]) {
        assert.equal(await withHnswEfSearch(db, ef, efIn), String(ef));
        assert.equal(await show(db, 'hnsw.ef_search'), String(DEFAULT_HNSW_EF_SEARCH));
      }
      assert.equal(await withHnswEfSearch(db, DEFAULT_HNSW_EF_SEARCH, efIn), String(DEFAULT_HNSW_EF_SEARCH));
      // The default needs no transaction: the work runs on the pool itself.
      const onPool = await withHnswEfSearch(db, DEFAULT_HNSW_EF_SEARCH, (q) =>
        Promise.resolve(q === db.knex),
      );
      assert.equal(onPool, true);
    });

    it('starts sessions at the configured HNSW_EF_SEARCH, which then needs no transaction either', async () => {
      const other = await openDatabase(
        store?.url ? { url: store.url, hnswEfSearch: 321 } : { dataDir: 'memory://', hnswEfSearch: 321 },
      );
      try {
        assert.equal(await show(other, 'hnsw.ef_search'), '321');
        assert.equal(await withHnswEfSearch(other, 321, (q) => Promise.resolve(q === other.read)), true);
        assert.equal(
          await withHnswEfSearch(other, DEFAULT_HNSW_EF_SEARCH, async (q) => {
            const res: { rows: { v: string }[] } = await q.raw(
              `select current_setting('hnsw.ef_search') as v`,
            );
            return res.rows[0]?.v;
          }),
          String(DEFAULT_HNSW_EF_SEARCH),
        );
        assert.equal(await show(other, 'hnsw.ef_search'), '321');
      } finally {
        await other.close();
      }
    });

    it('takes HNSW_EF_SEARCH from the configuration, and queries run at it', async () => {
      const t = await startTestEngram(engine, { HNSW_EF_SEARCH: '321' });
      try {
        assert.equal(await show(t.engram.db, 'hnsw.ef_search'), '321');
        for (const content of ['the canary deploy failed with E4711', 'lunch is at noon'])
          assert.equal(
            (await t.admin.post('/memories/add', { content, agent_id: 'a', scope: 'global' })).status,
            200,
          );
        const res = await t.admin.post<{ memories: { content: string }[] }>('/memories/query', {
          query: 'canary E4711',
          agent_id: 'a',
          top_k: 1,
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.memories[0]?.content, 'the canary deploy failed with E4711');
      } finally {
        await t.stop();
      }
    });
  });
}
