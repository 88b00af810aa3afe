import assert from 'node:assert/strict';
import { openDatabase, poolUsage } from '../src/index.ts';

const URL = process.env.ENGRAM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('poolUsage', () => {
  it('reads the PostgreSQL pools without a query: used while a query holds a connection, then free', async () => {
    const db = await openDatabase({ url: URL, readUrl: URL, poolMax: 3 });
    try {
      assert.deepEqual(
        poolUsage(db).map((p) => [p.pool, p.max]),
        [
          ['primary', 3],
          ['read', 3],
        ],
      );
      await db.knex.transaction(async (trx) => {
        await trx.raw('select 1');
        const primary = poolUsage(db).find((p) => p.pool === 'primary')!;
        assert.equal(primary.used, 1);
      });
      const primary = poolUsage(db).find((p) => p.pool === 'primary')!;
      assert.deepEqual([primary.used, primary.free, primary.pending], [0, 1, 0]);
    } finally {
      await db.close();
    }
    assert.deepEqual(poolUsage(db), [], 'a closed database has no pool to report');
  });

  it('reports PGlite as a pool of one connection', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    try {
      await db.knex.raw('select 1');
      assert.deepEqual(poolUsage(db), [{ pool: 'primary', used: 0, free: 1, pending: 0, max: 1 }]);
    } finally {
      await db.close();
    }
  });
});
