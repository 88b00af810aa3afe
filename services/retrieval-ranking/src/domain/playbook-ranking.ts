import { effectivenessScore, to01 } from '@engram/memory-model';
import type { ScoredMemory } from './search.ts';

/** A playbook candidate: similarity, its effectiveness, and (agent playbook) its record on the task type. */
export interface PlaybookCandidate extends ScoredMemory {
  /** effectivenessScore (@engram/memory-model) over all votes, in [-1, 1]. */
  readonly effectiveness: number;
  /**
   * Agents whose latest completed run of the requested task type that used the memory succeeded /
   * failed (each agent counts once; 0 without a task type).
   */
  readonly taskHelpful: number;
  readonly taskHarmful: number;
}

export type RankedEntry = PlaybookCandidate & { readonly relevance: number };

/**
 * The playbook order. A playbook is what worked, so effectiveness weighs as much as similarity:
 *   playbook:        0.5 * similarity + 0.5 * effectiveness01
 *   agent playbook:  0.4 * similarity + 0.3 * effectiveness01 + 0.3 * task01
 * where x01 = to01(x) = (x + 1) / 2 and task = effectivenessScore(task helpful, task harmful)
 * (@engram/memory-model) over the agents whose completed runs of the task type used the memory, each
 * by its latest such run (so memories that helped successful runs of that task rise, and ones that
 * failed it sink; one agent's many runs count once). Unvoted memories sit at the neutral 0.5. Ties:
 * more similar first.
 */
export function rankPlaybook(candidates: readonly PlaybookCandidate[], byTask: boolean): RankedEntry[] {
  return candidates
    .map((c) => {
      const eff = to01(c.effectiveness);
      const task = to01(effectivenessScore(c.taskHelpful, c.taskHarmful));
      const relevance = byTask ? 0.4 * c.score + 0.3 * eff + 0.3 * task : 0.5 * c.score + 0.5 * eff;
      return { ...c, relevance };
    })
    .sort((a, b) => b.relevance - a.relevance || b.score - a.score);
}
