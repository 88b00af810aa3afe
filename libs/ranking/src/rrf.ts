/**
 * The constant k of reciprocal rank fusion (Cormack, Clarke and Buettcher 2009 use 60). A small k
 * lets the first ranks of each list count for much more than the tenth; the value of hybrid queries
 * was chosen on the tuning part of the conversational benchmark (docs/decisions.md).
 */
export const RRF_K = 60;

/** A list entry: an id, or an id with the score it was ranked by (equal scores share a rank). */
export type RankedId = string | { readonly id: string; readonly score: number };

/**
 * Weighted reciprocal rank fusion: list i contributes weights[i] / (k + rank) (rank from 1) to every
 * id it holds (weight 1 when none is given). Entries with a score that equals the previous entry's
 * share its rank (1, 2, 2, 4), so a tie in one channel never becomes a gap in the fused score, which
 * matters with a small k. Returns the fused score of every id, in descending order of score (ties
 * keep first-seen order).
 */
export function reciprocalRankFusion(
  lists: readonly (readonly RankedId[])[],
  k: number = RRF_K,
  weights: readonly number[] = [],
): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  lists.forEach((list, l) => {
    const w = weights[l] ?? 1;
    let rank = 0;
    let prev: number | undefined;
    list.forEach((entry, i) => {
      const id = typeof entry === 'string' ? entry : entry.id;
      const score = typeof entry === 'string' ? undefined : entry.score;
      if (score === undefined || score !== prev) rank = i + 1;
      prev = score;
      scores.set(id, (scores.get(id) ?? 0) + w / (k + rank));
    });
  });
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** The best fused score possible (rank 1 in every list), to normalise fused scores to [0, 1]. */
export function maxFusedScore(weights: readonly number[], k: number = RRF_K): number {
  return weights.reduce((a, w) => a + w, 0) / (k + 1);
}
