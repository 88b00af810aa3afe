/**
 * Effectiveness: how much the votes on a memory say it helps. One formula for every reader (the
 * ranking signal, playbooks, curation, the vote answer); the SQL form used in ORDER BY and WHERE
 * clauses (EFFECTIVENESS_SQL in libs/memories) computes the same number and a test keeps them equal.
 */

/** Vote counts of one memory: one vote per memory, voter and task. */
export interface VoteCounts {
  readonly helpful: number;
  readonly harmful: number;
}

/**
 * (helpful - harmful) / (helpful + harmful + 1), in (-1, 1). The +1 keeps a single vote from
 * counting as certainty and makes an unvoted memory score 0.
 */
export function effectivenessScore(helpful: number, harmful: number): number {
  return (helpful - harmful) / (helpful + harmful + 1);
}

/**
 * The [0, 1] score of a signal that says nothing: an unvoted memory's effectiveness (0 mapped to
 * [0, 1]). Ranking gives the same neutral prior to its other missing signals.
 */
export const NEUTRAL_PRIOR = 0.5;

/** A score of [-1, 1] mapped linearly onto [0, 1]: -1 to 0, 0 to the neutral prior, 1 to 1. */
export function to01(score: number): number {
  return (score + 1) / 2;
}

/** Effectiveness on [0, 1], as ranking weighs it; no vote counts (or no votes) is the neutral prior. */
export function effectiveness01(votes: VoteCounts | undefined): number {
  if (!votes || votes.helpful + votes.harmful === 0) return NEUTRAL_PRIOR;
  return to01(effectivenessScore(votes.helpful, votes.harmful));
}
