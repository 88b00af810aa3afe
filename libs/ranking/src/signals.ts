import { NEUTRAL_PRIOR, TRUST_LEVELS } from '@engram/memory-model';

/**
 * Content trust labels mapped onto [0, 1], evenly spaced from untrusted (0) to system (1) in the
 * order of TRUST_LEVELS; a label not in the list scores 0.
 */
export function trustScore(trustLevel: string): number {
  const rank = (TRUST_LEVELS as readonly string[]).indexOf(trustLevel);
  return rank < 0 ? 0 : rank / (TRUST_LEVELS.length - 1);
}

/**
 * Provenance depth in [0, 1]: a direct write (depth 0) scores 1, every derivation step lowers it
 * (1 / (1 + depth)); a memory without a provenance record gets the neutral prior.
 */
export function depthScore(depth: number | undefined): number {
  if (depth === undefined) return NEUTRAL_PRIOR;
  return 1 / (1 + Math.max(0, depth));
}
