import type { Knex } from 'knex';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { queryText } from './corpus.ts';
import { BENCH_NAMESPACE } from './bulk-load.ts';

/**
 * recall@10 of the HNSW path against exact search on the same rows: the SQL the service runs for a
 * top_k = 10 query (iterative scan, namespace filter) with the given ef_search, once through the
 * index and once with index scans disabled (an exact scan and sort).
 */
export async function hnswRecall(knex: Knex, size: number, ef: number, queries = 100): Promise<number> {
  const embedder = new HashEmbedder({ dimensions: 384 });
  let hits = 0;
  let total = 0;
  for (let k = 0; k < queries; k++) {
    const [v] = await embedder.embed([queryText((k * 7919) % size, k)]);
    const vec = vectorLiteral(v!);
    const top = (index: boolean) =>
      knex.transaction(async (trx) => {
        if (index) {
          await trx.raw(`set local hnsw.iterative_scan = 'relaxed_order'`);
          await trx.raw(`set local hnsw.ef_search = ${ef}`);
        } else {
          await trx.raw('set local enable_indexscan = off');
          await trx.raw('set local enable_bitmapscan = off');
        }
        const rows = (await trx('memories')
          .select('id')
          .where({ project_id: 'default', namespace: BENCH_NAMESPACE, is_deprecated: false })
          .orderByRaw('embedding <=> ?::vector', [vec])
          .limit(10)) as { id: string }[];
        return rows.map((r) => r.id);
      });
    const exact = new Set(await top(false));
    const approx = await top(true);
    hits += approx.filter((id) => exact.has(id)).length;
    total += exact.size;
  }
  return hits / total;
}
