/** The constant k of reciprocal rank fusion (Cormack, Clarke and Buettcher 2009). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each list contributes 1 / (k + rank) (rank from 1) to every id it holds.
 * Returns the fused score of every id, in descending order of score (ties keep first-seen order).
 */
export function reciprocalRankFusion(
  lists: readonly (readonly string[])[],
  k: number = RRF_K,
): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** The best fused score possible with n lists (rank 1 in each), to normalise fused scores to [0, 1]. */
export function maxFusedScore(n: number, k: number = RRF_K): number {
  return n / (k + 1);
}
