import { aceMigrations } from '@engram/ace-feedback';
import { migrateLatest } from '@engram/db';
import { eventsMigrations } from '@engram/events';
import { memoryStoreMigrations, pinEmbeddingSpace } from '@engram/memory-store';
import { openEngineDatabase, type EngineDatabase, type TestEngine } from '@engram/testing';

/**
 * A fresh, empty store on the engine for the data-access statements: events', memory-store's and
 * ace-feedback's migrations, the embedding column pinned to 3 dimensions of the hash space.
 */
export async function openMemoryStore(engine: TestEngine): Promise<EngineDatabase> {
  const store = await openEngineDatabase(engine);
  for (const set of [eventsMigrations, memoryStoreMigrations, aceMigrations])
    await migrateLatest(store.db, set);
  await pinEmbeddingSpace(store.db, { provider: 'hash', model: 'engram-hash-v1', dimensions: 3 });
  return store;
}
