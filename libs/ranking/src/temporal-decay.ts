import type { MemoryType } from '@engram/memory-model';

const DAY_MS = 86_400_000;

/**
 * Half-lives of temporal decay by memory type, in days. Traces of one interaction (episodic,
 * progress) go stale within days; facts and lessons within months; procedures, reusable patterns
 * and control rules (constraints, error patterns) stay relevant for about a year.
 */
export const HALF_LIFE_DAYS: Readonly<Record<MemoryType, number>> = Object.freeze({
  episodic: 7,
  progress: 7,
  feature: 30,
  standard: 90,
  semantic: 180,
  reflection: 180,
  strategy: 365,
  procedural: 365,
  control: 365,
});

/** Half-life of a type not listed above. */
export const DEFAULT_HALF_LIFE_DAYS = 90;

export function halfLifeDays(memoryType: string): number {
  return (HALF_LIFE_DAYS as Readonly<Record<string, number>>)[memoryType] ?? DEFAULT_HALF_LIFE_DAYS;
}

/** exp(-ln 2 * age / half_life) in [0, 1]: 1 when new, 0.5 after one half-life. Future times count as new. */
export function temporalDecay(memoryType: string, ageMs: number): number {
  const age = Math.max(0, ageMs) / DAY_MS;
  return Math.exp((-Math.LN2 * age) / halfLifeDays(memoryType));
}
