import type { Knex } from 'knex';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { queryText } from './corpus.ts';
import { BENCH_NAMESPACE } from './bulk-load.ts';

/** recall@10 of the index path, counted two ways (both in [0, 1]). */
export interface Recall {
  /** Returned ids that are in the exact top 10. */
  readonly ids: number;
  /**
   * Returned rows whose distance is at most the exact 10th distance (+ 1e-6), the ann-benchmarks
   * definition: a row as near as the exact 10th is a true neighbour even when ties put another id
   * into the exact top 10. Equal to `ids` on the bench corpus, whose vectors are all distinct.
   */
  readonly distance: number;
}

const EPSILON = 1e-6;

/**
 * recall@10 of the HNSW path against exact search on the same rows: the SQL the service runs for a
 * top_k = 10 query (iterative scan, namespace filter) with the given ef_search, once through the
 * index and once with index scans disabled (an exact scan and sort).
 */
export async function hnswRecall(
  knex: Knex,
  size: number,
  ef: number,
  queries = 100,
  /** The query's vector in the store's space; default the hash embedder's. */
  embedQuery?: (text: string) => ArrayLike<number>,
): Promise<Recall> {
  const embedder = new HashEmbedder({ dimensions: 384 });
  const vectorOf = embedQuery ?? ((text: string) => embedder.embedText(text));
  let idHits = 0;
  let distanceHits = 0;
  let total = 0;
  for (let k = 0; k < queries; k++) {
    const vec = vectorLiteral(Array.from(vectorOf(queryText((k * 7919) % size, k))));
    const top = (index: boolean) =>
      knex.transaction(async (trx) => {
        if (index) {
          await trx.raw(`set local hnsw.iterative_scan = 'relaxed_order'`);
          await trx.raw(`set local hnsw.ef_search = ${ef}`);
        } else {
          await trx.raw('set local enable_indexscan = off');
          await trx.raw('set local enable_bitmapscan = off');
        }
        return (await trx('memories')
          .select('id', trx.raw('embedding <=> ?::vector as distance', [vec]))
          .where({ project_id: 'default', namespace: BENCH_NAMESPACE, is_deprecated: false })
          .orderByRaw('embedding <=> ?::vector', [vec])
          .limit(10)) as { id: string; distance: number }[];
      });
    const exact = await top(false);
    const approx = await top(true);
    const ids = new Set(exact.map((r) => r.id));
    const kth = exact[exact.length - 1]?.distance ?? Infinity;
    idHits += approx.filter((r) => ids.has(r.id)).length;
    distanceHits += approx.filter((r) => r.distance <= kth + EPSILON).length;
    total += exact.length;
  }
  return { ids: idHits / total, distance: distanceHits / total };
}
