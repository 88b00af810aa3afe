/** The neutral prior of a signal that is missing (unvoted memory, no provenance record). */
export const NEUTRAL_PRIOR = 0.5;

/** Content trust labels mapped onto [0, 1], evenly spaced from untrusted to system. */
const TRUST_SCORES: Readonly<Record<string, number>> = Object.freeze({
  untrusted: 0,
  unknown: 0.25,
  internal: 0.5,
  privileged: 0.75,
  system: 1,
});

export function trustScore(trustLevel: string): number {
  return TRUST_SCORES[trustLevel] ?? 0;
}

/**
 * Effectiveness (helpful - harmful) / (helpful + harmful + 1) in [-1, 1], mapped to [0, 1];
 * an unvoted memory gets the neutral prior.
 */
export function effectiveness01(votes: { helpful: number; harmful: number } | undefined): number {
  if (!votes || votes.helpful + votes.harmful === 0) return NEUTRAL_PRIOR;
  const e = (votes.helpful - votes.harmful) / (votes.helpful + votes.harmful + 1);
  return (e + 1) / 2;
}

/**
 * Provenance depth in [0, 1]: a direct write (depth 0) scores 1, every derivation step lowers it
 * (1 / (1 + depth)); a memory without a provenance record gets the neutral prior.
 */
export function depthScore(depth: number | undefined): number {
  if (depth === undefined) return NEUTRAL_PRIOR;
  return 1 / (1 + Math.max(0, depth));
}
