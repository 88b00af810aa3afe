import assert from 'node:assert/strict';
import {
  PGVECTOR_DEFAULTS,
  HNSW_INDEX_NAME,
  HNSW_INDEX_PARAMS,
  PGLITE_HASH_PARAMS,
  hnswDefaults,
  hnswIndexParams,
  migrateLatest,
  pinnedHnswSettings,
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

    it('is built with the hash space’s parameters for its engine when a store pins its embedding space', async () => {
      assert.equal(await hnswIndexParams(db.knex), undefined);
      await pinEmbeddingSpace(db, { provider: 'hash', model: 'engram-hash-v1', dimensions: 8 });
      // The embedded store builds a smaller graph: each insert is WASM on the process's one thread.
      const build = engine === 'pglite' ? PGLITE_HASH_PARAMS : HNSW_INDEX_PARAMS;
      assert.deepEqual(await hnswIndexParams(db.knex), { ...build });
      assert.deepEqual(await pinnedHnswSettings(db.knex), { ...build, efSearch: 200 });
      assert.deepEqual(hnswDefaults('hash', engine), { ...build, efSearch: 200 });
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

const show = async (db: Database): Promise<string> => {
  const res: { rows: { ef: string }[] } = await db.read.raw(`select current_setting('hnsw.ef_search') as ef`);
  return String(res.rows[0]?.ef);
};

for (const engine of ENGINES) {
  describe(`HNSW settings pinned with the embedding space (${engine})`, function () {
    this.timeout(60_000);
    let store: EngineDatabase | undefined;
    const fresh = async () => {
      store = await openEngineDatabase(engine);
      for (const set of [eventsMigrations, memoryStoreMigrations]) await migrateLatest(store.db, set);
      return store.db;
    };
    afterEach(async () => {
      await store?.close();
      store = undefined;
    });

    it('takes the provider’s defaults, builds the index with them and searches at the pinned ef_search', async () => {
      const db = await fresh();
      const pinned = await pinEmbeddingSpace(db, { provider: 'openai', model: 'm', dimensions: 8 });
      const want = hnswDefaults('openai');
      assert.deepEqual(pinned, want);
      assert.deepEqual(await pinnedHnswSettings(db.knex), want);
      assert.deepEqual(await hnswIndexParams(db.knex), { m: want.m, efConstruction: want.efConstruction });
      assert.equal(db.hnswEfSearch, want.efSearch);
      assert.equal(await show(db), String(want.efSearch), 'the sessions run at the pinned value');
    });

    it('records what the operator chose when the store is initialised, and keeps it on later starts', async () => {
      const db = await fresh();
      const space = { provider: 'openai' as const, model: 'm', dimensions: 8 };
      await pinEmbeddingSpace(db, space, { m: 12, efConstruction: 48, efSearch: 77 });
      assert.deepEqual(await pinnedHnswSettings(db.knex), { m: 12, efConstruction: 48, efSearch: 77 });
      assert.deepEqual(await hnswIndexParams(db.knex), { m: 12, efConstruction: 48 });
      assert.equal(await show(db), '77');
      // A later start with other settings: the store keeps its own (engram reembed changes them).
      const again = await pinEmbeddingSpace(db, space, { efSearch: 300 });
      assert.deepEqual(again, { m: 12, efConstruction: 48, efSearch: 77 });
      assert.equal(await show(db), '77');
    });

    it('moves every pooled session when the pinned ef_search changes', async () => {
      const db = await fresh();
      await pinEmbeddingSpace(db, { provider: 'hash', model: 'engram-hash-v1', dimensions: 8 });
      assert.equal(await show(db), '200');
      await db.setHnswEfSearch(64);
      const seen = await Promise.all(Array.from({ length: 6 }, () => show(db)));
      assert.deepEqual(new Set(seen), new Set(['64']));
    });
  });
}
