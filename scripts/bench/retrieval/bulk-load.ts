import type { Knex } from 'knex';
import { createHash } from 'node:crypto';
import { createHnswIndexSql, HNSW_INDEX_NAME, hnswSettingsFor, pinnedHnswSettings } from '@engram/db';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { uuidv7 } from '@engram/events';
import { signV2 } from '@engram/integrity';
import { indexRowsSql, POSTINGS_TERM_INDEX_SQL } from '@engram/memory-store';
import { memoryText } from './corpus.ts';

export const BENCH_NAMESPACE = 'bench';
const BATCH = 500;
/** With lexicalInBulk: rows per insert statement, and per transaction (indexed at its end). */
const BULK_BATCH = 2_000;
const BULK_CHUNK = 20_000;

/** The columns of memories that indexRowsSql reads. */
const INDEXED_COLUMNS = 'id, project_id, namespace, content, scope, agent_id, shared_with, is_deprecated';

/**
 * Inserts corpus memories [from, to) straight into the memories table (the write path is measured
 * separately): valid v2 signatures with the instance's integrity key, hash-embedder vectors of the
 * store's space, global scope, spread over 20 agents. With rebuildIndex the HNSW index is dropped
 * before and rebuilt after (much faster than growing it row by row).
 * With lexicalInBulk the write-time lexical triggers are off for the loading transactions only
 * (session_replication_role = replica, a superuser setting: the bench database's), rows go in
 * BULK_BATCH per statement, and each BULK_CHUNK rows are indexed at the end of their transaction
 * by the statements the bm25-postings migration indexes existing memories with (indexRowsSql); the
 * posting lists' index is dropped before and rebuilt after. The result equals the triggers' (the
 * lexical-scale bench checks it on a small size).
 */
export async function bulkLoad(
  knex: Knex,
  opts: {
    integrityKey: string;
    from: number;
    to: number;
    rebuildIndex: boolean;
    /** Index the lexical channel in bulk instead of through the write-time triggers. */
    lexicalInBulk?: boolean;
    maintenanceWorkMem?: string;
    log: (s: string) => void;
    /** The vectors of corpus memories [from, to) in the store's space; default the hash embedder's. */
    vectors?: (from: number, to: number) => Promise<ArrayLike<number>[]>;
  },
): Promise<void> {
  const embedder = new HashEmbedder({ dimensions: 384 });
  const vectorsOf =
    opts.vectors ??
    ((from: number, to: number) =>
      embedder.embed(Array.from({ length: to - from }, (_, k) => memoryText(from + k))));
  if (opts.rebuildIndex) await knex.raw(`drop index if exists ${HNSW_INDEX_NAME}`);
  const bulk = opts.lexicalInBulk === true;
  if (bulk) await knex.raw('drop index if exists memory_postings_term');
  const rowsOf = async (start: number, end: number) => {
    const texts = Array.from({ length: end - start }, (_, k) => memoryText(start + k));
    const vectors = await vectorsOf(start, end);
    return texts.map((content, k) => {
      const agent = `agent-${(start + k) % 20}`;
      const f = { project_id: 'default', agent_id: agent, scope: 'global', trust_level: 'internal', content };
      return {
        id: uuidv7(),
        ...f,
        namespace: BENCH_NAMESPACE,
        content_key: createHash('sha256').update(content).digest('hex'),
        memory_type: (start + k) % 5 === 0 ? 'semantic' : 'standard',
        integrity_hash: signV2(opts.integrityKey, f),
        embedding: vectorLiteral(Array.from(vectors[k]!)),
      };
    });
  };
  const progress = (end: number) => {
    if ((end - opts.from) % 20_000 === 0 || end === opts.to) {
      opts.log(
        `  loaded ${end.toLocaleString('en')} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
    }
  };
  const t0 = performance.now();
  const step = bulk ? BULK_CHUNK : BATCH;
  for (let start = opts.from; start < opts.to; start += step) {
    const end = Math.min(opts.to, start + step);
    if (!bulk) {
      await knex('memories').insert(await rowsOf(start, end));
    } else {
      await knex.transaction(async (trx) => {
        await trx.raw('set local session_replication_role = replica');
        const ids: string[] = [];
        for (let s = start; s < end; s += BULK_BATCH) {
          const rows = await rowsOf(s, Math.min(end, s + BULK_BATCH));
          await trx('memories').insert(rows);
          for (const r of rows) ids.push(r.id);
        }
        const loaded = `select ${INDEXED_COLUMNS} from memories where id = any(?::uuid[])`;
        for (const sql of indexRowsSql(loaded)) await trx.raw(sql, [ids]);
      });
    }
    progress(end);
  }
  if (bulk) {
    const t1 = performance.now();
    await knex.transaction(async (trx) => {
      await trx.raw(`set local maintenance_work_mem = '${opts.maintenanceWorkMem ?? '512MB'}'`);
      await trx.raw('set local max_parallel_maintenance_workers = 2');
      await trx.raw(POSTINGS_TERM_INDEX_SQL);
    });
    opts.log(`  posting lists' index built in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  }
  if (opts.rebuildIndex) {
    const t1 = performance.now();
    await knex.transaction(async (trx) => {
      await trx.raw(`set local maintenance_work_mem = '${opts.maintenanceWorkMem ?? '512MB'}'`);
      await trx.raw('set local max_parallel_maintenance_workers = 2');
      // The build the store's embedding space is pinned with.
      await trx.raw(createHnswIndexSql((await pinnedHnswSettings(trx)) ?? hnswSettingsFor('hash')));
    });
    opts.log(`  HNSW index built in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  }
  await knex.raw('analyze memories');
}
