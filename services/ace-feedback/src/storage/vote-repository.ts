import type { Database } from '@engram/db';
import { appendEvent } from '@engram/events';
import { countVotes, upsertVote, type Effectiveness } from '@engram/memories';
import type { Actor, VoteInput, VoteRepository } from '../domain/ports.ts';

/** Votes through @engram/memories (the ballot upsert and the counts), with their VOTED event. */
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
