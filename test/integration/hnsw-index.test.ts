import assert from 'node:assert/strict';
import {
  PGVECTOR_DEFAULTS,
  HNSW_INDEX_NAME,
  HNSW_INDEX_PARAMS,
  hnswIndexParams,
  migrateLatest,
  type Database,
} from '@engram/db';
import { eventsMigrations } from '@engram/events';
import { memoryStoreMigrations, pinEmbeddingSpace } from '@engram/memory-store';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

const indexOid = async (db: Database) => {
  const res: { rows: { oid: string }[] } = await db.knex.raw(
    `select oid::text as oid from pg_class where relname = ?`,
    [HNSW_INDEX_NAME],
  );
  return res.rows[0]?.oid;
};

for (const engine of ENGINES) {
  describe(`the HNSW index and its build parameters (${engine})`, function () {
    this.timeout(60_000);
    let db: Database;
    let store: EngineDatabase | undefined;
    before(async () => {
      store = await openEngineDatabase(engine);
      db = store.db;
      for (const set of [eventsMigrations, memoryStoreMigrations]) await migrateLatest(db, set);
    });
    after(async () => {
      await store?.close();
    });

    it('is built with the shared parameters when a store pins its embedding space', async () => {
      assert.equal(await hnswIndexParams(db.knex), undefined);
      await pinEmbeddingSpace(db, { provider: 'hash', model: 'engram-hash-v1', dimensions: 8 });
      assert.deepEqual(await hnswIndexParams(db.knex), { ...HNSW_INDEX_PARAMS });
    });

    it('is rebuilt once by the migration when an older store has pgvector’s defaults, then left alone', async () => {
      const migration = memoryStoreMigrations.migrations.find((m) => m.name.includes('hnsw-index-params'));
      assert.ok(migration);
      await db.knex.raw(`drop index ${HNSW_INDEX_NAME}`);
      // An index as an older store has it: built without options.
      await db.knex.raw(
        `create index ${HNSW_INDEX_NAME} on memories using hnsw (embedding vector_cosine_ops)`,
      );
      assert.deepEqual(await hnswIndexParams(db.knex), { ...PGVECTOR_DEFAULTS });
      await migration.up(db.knex);
      assert.deepEqual(await hnswIndexParams(db.knex), { ...HNSW_INDEX_PARAMS });
      const before = await indexOid(db);
      await migration.up(db.knex);
      assert.equal(await indexOid(db), before, 'no second rebuild');
    });
  });
}
