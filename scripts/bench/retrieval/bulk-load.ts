import type { Knex } from 'knex';
import { createHash } from 'node:crypto';
import { createHnswIndexSql, HNSW_INDEX_NAME, hnswSettingsFor, pinnedHnswSettings } from '@engram/db';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { uuidv7 } from '@engram/events';
import { signV2 } from '@engram/integrity';
import { memoryText } from './corpus.ts';

export const BENCH_NAMESPACE = 'bench';
const BATCH = 500;

/**
 * Inserts corpus memories [from, to) straight into the memories table (the write path is measured
 * separately): valid v2 signatures with the instance's integrity key, hash-embedder vectors of the
 * store's space, global scope, spread over 20 agents. With rebuildIndex the HNSW index is dropped
 * before and rebuilt after (much faster than growing it row by row).
 */
export async function bulkLoad(
  knex: Knex,
  opts: {
    integrityKey: string;
    from: number;
    to: number;
    rebuildIndex: boolean;
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
  const t0 = performance.now();
  for (let start = opts.from; start < opts.to; start += BATCH) {
    const end = Math.min(opts.to, start + BATCH);
    const texts = Array.from({ length: end - start }, (_, k) => memoryText(start + k));
    const vectors = await vectorsOf(start, end);
    const rows = texts.map((content, k) => {
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
    await knex('memories').insert(rows);
    if ((end - opts.from) % 20_000 === 0 || end === opts.to) {
      opts.log(
        `  loaded ${end.toLocaleString('en')} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
    }
  }
  if (opts.rebuildIndex) {
    const t1 = performance.now();
    await knex.transaction(async (trx) => {
      await trx.raw(`set local maintenance_work_mem = '${opts.maintenanceWorkMem ?? '512MB'}'`);
      // The build the store's embedding space is pinned with.
      await trx.raw(createHnswIndexSql((await pinnedHnswSettings(trx)) ?? hnswSettingsFor('hash')));
    });
    opts.log(`  HNSW index built in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  }
  await knex.raw('analyze memories');
}
