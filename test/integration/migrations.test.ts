import assert from 'node:assert/strict';
import { migrateLatest, migrateRollbackAll, type Database } from '@engram/db';
import { eventsMigrations } from '@engram/events';
import { memoryStoreMigrations } from '@engram/memory-store';
import { aceMigrations } from '@engram/ace-feedback';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

const tables = async (db: Database) => {
  const res: { rows: { tablename: string }[] } = await db.knex.raw(
    `select tablename from pg_tables where schemaname = 'public' order by 1`,
  );
  return res.rows.map((r) => r.tablename).filter((t) => !t.startsWith('knex_'));
};

/** The tables the three migration sets own, by name. */
const EVERY_TABLE = [
  'api_keys',
  'audit_events',
  'embedding_space',
  'features',
  'lexical_df',
  'lexical_docs',
  'memories',
  'memory_postings',
  'memory_provenance',
  'memory_votes',
  'progress_sessions',
  'projects',
  'runs',
];

for (const engine of ENGINES) {
  describe(`migrations up and down (${engine})`, function () {
    this.timeout(60_000);
    let db: Database;
    let store: EngineDatabase | undefined;
    before(async () => {
      store = await openEngineDatabase(engine);
      db = store.db;
    });
    after(async () => {
      await store?.close();
    });

    it('applies every migration, rolls every one back, and applies them again', async () => {
      for (const set of [eventsMigrations, memoryStoreMigrations, aceMigrations])
        await migrateLatest(db, set);
      assert.deepEqual(await tables(db), EVERY_TABLE);
      const unused: { rows: unknown[] } = await db.knex.raw(
        `select 1 from information_schema.columns where table_name = 'memories' and column_name = 'content_tsv'`,
      );
      assert.equal(unused.rows.length, 0, 'the full-text column no query read is gone, with its index');
      assert.deepEqual(await migrateLatest(db, memoryStoreMigrations), [], 'a second run applies nothing');
      for (const set of [aceMigrations, memoryStoreMigrations, eventsMigrations])
        await migrateRollbackAll(db, set);
      assert.deepEqual(await tables(db), []);
      for (const set of [eventsMigrations, memoryStoreMigrations, aceMigrations])
        await migrateLatest(db, set);
      assert.deepEqual(await tables(db), EVERY_TABLE);
    });
  });
}
