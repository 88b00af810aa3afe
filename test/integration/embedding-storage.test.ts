import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { migrateLatest, type Database } from '@engram/db';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { eventsMigrations } from '@engram/events';
import { memoryStoreMigrations, pinEmbeddingSpace } from '@engram/memory-store';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

const embedder = new HashEmbedder({ dimensions: 384 });

async function insert(db: Database, content: string): Promise<string> {
  const [v] = await embedder.embed([content]);
  const id = randomUUID();
  await db.knex('memories').insert({
    id,
    project_id: 'default',
    namespace: 'default',
    agent_id: 'agent-1',
    content,
    content_key: createHash('sha256').update(content).digest('hex'),
    memory_type: 'standard',
    scope: 'global',
    trust_level: 'internal',
    embedding: vectorLiteral(v!),
  });
  return id;
}

/** Chunks in the memories table's toast relation (values stored out of line). */
async function toastChunks(db: Database): Promise<number> {
  const rel: { rows: { t: string }[] } = await db.knex.raw(
    `select reltoastrelid::regclass::text as t from pg_class where relname = 'memories'`,
  );
  const n: { rows: { n: string | number }[] } = await db.knex.raw(
    `select count(*) as n from ${rel.rows[0]!.t}`,
  );
  return Number(n.rows[0]!.n);
}

for (const engine of ENGINES) {
  describe(`where a memory's vector is stored (${engine})`, function () {
    this.timeout(60_000);
    let db: Database;
    let store: EngineDatabase | undefined;
    before(async () => {
      store = await openEngineDatabase(engine);
      db = store.db;
      for (const set of [eventsMigrations, memoryStoreMigrations]) await migrateLatest(db, set);
      await pinEmbeddingSpace(db, embedder.space);
    });
    after(async () => {
      await store?.close();
    });

    it('keeps a typical memory whole on its heap page, vector included (no toast lookups on exact scans)', async () => {
      for (let i = 0; i < 20; i++) {
        await insert(
          db,
          `The payments service times out with E${4000 + i} when the connection pool is exhausted; ` +
            `raise the pool size (see src/payments/pool.ts). Note ${i}.`,
        );
      }
      assert.equal(await toastChunks(db), 0);
    });

    it('moves a long content out of line and still finds the row by its vector, exactly and through the index', async () => {
      // Varied enough not to compress below the page's 4 kB target (a repeated sentence would).
      const steps = Array.from(
        { length: 300 },
        (_, i) =>
          `step ${i} checks slot ${createHash('sha256').update(String(i)).digest('hex').slice(0, 16)}`,
      );
      const long = `Runbook for the ledger replica lag: ${steps.join('; ')}.`;
      const id = await insert(db, long);
      assert.ok((await toastChunks(db)) > 0, 'the long content went to the toast table');
      const [q] = await embedder.embed([long]);
      for (const exact of [true, false]) {
        const rows = await db.knex.transaction(async (trx) => {
          if (exact) await trx.raw('set local enable_indexscan = off');
          return (await trx('memories')
            .select('id', 'content')
            .orderByRaw('embedding <=> ?::vector', [vectorLiteral(q!)])
            .limit(1)) as { id: string; content: string }[];
        });
        assert.equal(rows[0]?.id, id);
        assert.equal(rows[0]?.content, long);
      }
    });
  });
}
