import type { ReadContext } from '@engram/memories';
import { maxFusedScore } from '@engram/ranking';
import type { ScoredMemory, SearchQuery } from './search.ts';
import { rankByTrust } from './trust-ranker.ts';
import { fuseInTime, memoryDate } from './temporal-ranking.ts';
import { candidatePool, type RankedMemory, type SearchDeps } from './vector-search.ts';

const MAX_ATTEMPTS = 3;

/**
 * Weighted reciprocal rank fusion of hybrid queries: the constant k and the weights of the vector
 * and lexical lists, chosen on the tuning part of the conversational benchmark (docs/decisions.md).
 */
export const HYBRID_FUSION = Object.freeze({ k: 3, weights: Object.freeze<number[]>([0.1, 0.9]) });

/**
 * Hybrid search: the `pool` nearest candidates by cosine and the `pool` best lexical candidates
 * (Okapi BM25, statistics over the rows the reader may see), both inside the reader's visibility in
 * SQL, verified on read, then fused by weighted reciprocal rank fusion (HYBRID_FUSION) over the
 * verified rows, so a
 * dropped row never holds a rank. A question that names dates (q.intervals) adds one more list, the
 * candidates dated inside them in fused order (fuseInTime, TEMPORAL_FUSION); one without is fused
 * as before. With trust-weighted ranking the similarity term is the fused
 * score normalised to [0, 1]. score stays cosine. When drops leave fewer than top_k rows while a
 * channel still had more, the pool doubles (at most three attempts).
 */
export async function hybridSearch(
  deps: SearchDeps,
  q: SearchQuery,
  topK: number,
  ctx: ReadContext,
): Promise<RankedMemory[]> {
  let pool = candidatePool(topK);
  // Verified rows by id, and every id screened so far: a retry screens (and records) only new rows.
  const byId = new Map<string, RankedMemory>();
  const screened = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const [vec, lex] = await Promise.all([
      deps.search.search(q, pool, 0),
      deps.search.lexicalSearch(q, pool),
    ]);
    const fresh = new Map<string, ScoredMemory>();
    for (const m of [...vec, ...lex]) if (!screened.has(m.id)) fresh.set(m.id, m);
    const kept = (await deps.reader.screen([...fresh.values()], ctx)) as RankedMemory[];
    for (const id of fresh.keys()) screened.add(id);
    for (const m of kept) byId.set(m.id, m);
    // Verified rows with the score each channel ranked them by (equal scores share a rank).
    const ranked = (list: readonly ScoredMemory[], score: (m: ScoredMemory) => number) =>
      list.filter((m) => byId.has(m.id)).map((m) => ({ id: m.id, score: score(m) }));
    const { fused, weights } = fuseInTime(
      [ranked(vec, (m) => m.score), ranked(lex, (m) => m.lexicalScore ?? 0)],
      HYBRID_FUSION,
      q.intervals,
      (id) => {
        const m = byId.get(id);
        return m && memoryDate(m);
      },
    );
    const exhausted = vec.length < pool && lex.length < pool;
    if (fused.length >= topK || exhausted || attempt >= MAX_ATTEMPTS) {
      const fusedScore = new Map(fused.map((f) => [f.id, f.score]));
      const ordered = fused.map((f) => byId.get(f.id)!);
      if (!deps.ranking?.enabled) return ordered.slice(0, topK);
      const best = maxFusedScore(weights, HYBRID_FUSION.k);
      const now = deps.now?.() ?? new Date();
      const ranked = await rankByTrust(
        deps.search,
        deps.ranking.weights,
        ordered,
        (m) => (fusedScore.get(m.id) ?? 0) / best,
        now,
      );
      return ranked.slice(0, topK);
    }
    pool *= 2;
  }
}
