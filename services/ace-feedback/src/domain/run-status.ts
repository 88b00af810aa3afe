import type { VoteValue } from './vote-value.ts';

/**
 * Run states. A run is `started` by POST /ace/run and becomes `completed` exactly once, by
 * POST /ace/run/{run_id}/complete:
 *
 *   started --complete(success=true)--> completed   helpful vote on every used memory
 *   started --complete(success=false)-> completed   harmful votes and a reflection memory
 *   completed --complete--> refused (409 FAILED_PRECONDITION RUN_ALREADY_COMPLETED), nothing voted
 */
export type RunStatus = 'started' | 'completed';

export interface Run {
  readonly projectId: string;
  readonly runId: string;
  readonly agentId: string;
  readonly taskType: string;
  readonly memoryIdsUsed: readonly string[];
  readonly status: RunStatus;
  readonly success: boolean | null;
  readonly evaluation: Record<string, unknown> | null;
  readonly reflectionId: string | null;
  readonly startedAt: Date;
  readonly completedAt: Date | null;
}

export interface NewRun {
  readonly runId: string;
  readonly agentId: string;
  readonly taskType: string;
  readonly memoryIdsUsed: readonly string[];
}

export interface RunCompletion {
  readonly runId: string;
  readonly success: boolean;
  readonly evaluation: Record<string, unknown>;
  readonly reflectionId: string | null;
  /** The vote cast on every used memory. */
  readonly vote: VoteValue;
}

/** The vote a completed run casts on the memories it used. */
export function voteForOutcome(success: boolean): VoteValue {
  return success ? 'helpful' : 'harmful';
}
