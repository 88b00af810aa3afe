import type { ScoredMemory } from './search.ts';

/** A playbook candidate: similarity, its effectiveness, and (agent playbook) its record on the task type. */
export interface PlaybookCandidate extends ScoredMemory {
  /** (helpful - harmful) / (helpful + harmful + 1) over all votes. */
  readonly effectiveness: number;
  /**
   * Agents whose latest completed run of the requested task type that used the memory succeeded /
   * failed (each agent counts once; 0 without a task type).
   */
  readonly taskHelpful: number;
  readonly taskHarmful: number;
}

export type RankedEntry = PlaybookCandidate & { readonly relevance: number };

const to01 = (x: number) => (x + 1) / 2;

/**
 * The playbook order. A playbook is what worked, so effectiveness weighs as much as similarity:
 *   playbook:        0.5 * similarity + 0.5 * effectiveness01
 *   agent playbook:  0.4 * similarity + 0.3 * effectiveness01 + 0.3 * task01
 * where x01 = (x + 1) / 2 and task = (task helpful - task harmful) / (task votes + 1) over the agents
 * whose completed runs of the task type used the memory, each by its latest such run (so memories
 * that helped successful runs of that task rise, and ones that failed it sink; one agent's many runs
 * count once). Unvoted memories sit at the neutral 0.5. Ties: more similar first.
 */
export function rankPlaybook(candidates: readonly PlaybookCandidate[], byTask: boolean): RankedEntry[] {
  return candidates
    .map((c) => {
      const eff = to01(c.effectiveness);
      const task = to01((c.taskHelpful - c.taskHarmful) / (c.taskHelpful + c.taskHarmful + 1));
      const relevance = byTask ? 0.4 * c.score + 0.3 * eff + 0.3 * task : 0.5 * c.score + 0.5 * eff;
      return { ...c, relevance };
    })
    .sort((a, b) => b.relevance - a.relevance || b.score - a.score);
}
