import type { Knex } from 'knex';
import type { Database } from '@engram/db';
import { appendEvent } from '@engram/events';
import type { Effectiveness } from '@engram/memories';
import { effectivenessScore } from '@engram/memory-model';
import type { Actor, VoteInput, VoteRepository } from '../domain/ports.ts';

/**
 * Casts the voter's ballot on a memory, replacing its earlier one whatever the task_id (the primary
 * key is (project, memory, voter): one agent is one voice); used inside a transaction.
 */
export async function upsertVote(trx: Knex.Transaction, actor: Actor, v: VoteInput): Promise<void> {
  await trx.raw(
    `insert into memory_votes (project_id, memory_id, voter_agent_id, task_id, vote, context, api_key_id)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (project_id, memory_id, voter_agent_id)
     do update set task_id = excluded.task_id, vote = excluded.vote, context = excluded.context,
       api_key_id = excluded.api_key_id, updated_at = now()`,
    [actor.projectId, v.memoryId, v.voterAgentId, v.taskId, v.vote, v.context, actor.apiKeyId],
  );
}

export async function countVotes(
  trx: Knex | Knex.Transaction,
  projectId: string,
  memoryId: string,
): Promise<Effectiveness> {
  const row = (await trx('memory_votes')
    .select(trx.raw(`count(*) filter (where vote = 'helpful') as helpful`))
    .select(trx.raw(`count(*) filter (where vote = 'harmful') as harmful`))
    .where({ project_id: projectId, memory_id: memoryId })
    .first()) as { helpful: string | number; harmful: string | number } | undefined;
  const helpful = Number(row?.helpful ?? 0);
  const harmful = Number(row?.harmful ?? 0);
  return { helpful, harmful, score: effectivenessScore(helpful, harmful) };
}

export class KnexVoteRepository implements VoteRepository {
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void,
  ) {}

  async cast(actor: Actor, vote: VoteInput): Promise<Effectiveness> {
    const counts = await this.db.knex.transaction(async (trx) => {
      await upsertVote(trx, actor, vote);
      await appendEvent(trx, {
        eventType: 'VOTED',
        projectId: actor.projectId,
        agentId: actor.agentId,
        memoryId: vote.memoryId,
        apiKeyId: actor.apiKeyId,
        details: { vote: vote.vote, task_id: vote.taskId },
      });
      return countVotes(trx, actor.projectId, vote.memoryId);
    });
    this.onCommit();
    return counts;
  }
}
