import type { Knex } from 'knex';

/** One ballot: a voter's helpful or harmful vote on a memory, for a task, with its context. */
export interface Ballot {
  readonly memoryId: string;
  readonly voterAgentId: string;
  readonly taskId: string;
  readonly vote: 'helpful' | 'harmful';
  readonly context: string;
}

/**
 * Casts the voter's ballot on a memory, replacing its earlier one whatever the task_id (the primary
 * key is (project, memory, voter): one agent is one voice); used inside a transaction.
 */
export async function upsertVote(
  trx: Knex.Transaction,
  by: { readonly projectId: string; readonly apiKeyId: string },
  v: Ballot,
): Promise<void> {
  await trx.raw(
    `insert into memory_votes (project_id, memory_id, voter_agent_id, task_id, vote, context, api_key_id)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (project_id, memory_id, voter_agent_id)
     do update set task_id = excluded.task_id, vote = excluded.vote, context = excluded.context,
       api_key_id = excluded.api_key_id, updated_at = now()`,
    [by.projectId, v.memoryId, v.voterAgentId, v.taskId, v.vote, v.context, by.apiKeyId],
  );
}
