import { actingAgent, readerOf, type Principal } from '@engram/auth';
import { isUuid, NotFoundError } from '@engram/errors';
import type { Effectiveness } from '@engram/memories';
import { ID_MAX_LENGTH } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import type { MemoryLookup, VoteRepository } from './ports.ts';
import type { VoteValue } from './vote-value.ts';

export const VOTE_CONTEXT_MAX_LENGTH = 2000;

export interface VoteRequest {
  readonly memoryId: string;
  readonly vote: string;
  readonly voterAgentId: string;
  readonly context: string;
  readonly taskId: string;
}

/**
 * A helpful or harmful vote by an agent on a memory it can read (anything else is 404, like a missing
 * memory). One ballot per (memory, voter): voting again, with any task_id, replaces the voter's
 * earlier vote, so no single agent moves a memory's effectiveness by more than one vote
 * (docs/decisions.md). task_id is kept as the task of the standing vote and in the VOTED event.
 */
export async function castVote(
  deps: { votes: VoteRepository; memories: MemoryLookup },
  principal: Principal,
  req: VoteRequest,
): Promise<Effectiveness> {
  const checks = new FieldChecks()
    .id('voter_agent_id', req.voterAgentId, ID_MAX_LENGTH)
    .id('task_id', req.taskId, ID_MAX_LENGTH)
    .text('context', req.context, VOTE_CONTEXT_MAX_LENGTH);
  if (req.vote !== 'helpful' && req.vote !== 'harmful') checks.add('vote', 'must be helpful or harmful');
  checks.throwIfAny();
  const voter = actingAgent(principal, req.voterAgentId, 'voter_agent_id');
  if (!isUuid(req.memoryId)) throw new NotFoundError('memory not found');
  const memoryId = req.memoryId.toLowerCase();
  const visible = await deps.memories.visibleIds(readerOf(principal, voter), [memoryId]);
  if (!visible.has(memoryId)) throw new NotFoundError('memory not found');
  return deps.votes.cast(
    { projectId: principal.projectId, agentId: voter, apiKeyId: principal.keyId },
    { memoryId, voterAgentId: voter, taskId: req.taskId, vote: req.vote as VoteValue, context: req.context },
  );
}
