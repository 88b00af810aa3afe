import type { Database } from '@engram/db';
import { appendEvent } from '@engram/events';
import type { Actor, RunRepository } from '../domain/ports.ts';
import type { NewRun, Run, RunCompletion } from '../domain/run-status.ts';
import { upsertVote } from '@engram/memories';

interface RunRow {
  project_id: string;
  run_id: string;
  agent_id: string;
  task_type: string;
  memory_ids_used: string[] | null;
  status: 'started' | 'completed';
  success: boolean | null;
  evaluation: Record<string, unknown> | string | null;
  reflection_id: string | null;
  started_at: Date | string;
  completed_at: Date | string | null;
}

function runFromRow(r: RunRow): Run {
  return {
    projectId: r.project_id,
    runId: r.run_id,
    agentId: r.agent_id,
    taskType: r.task_type,
    memoryIdsUsed: r.memory_ids_used ?? [],
    status: r.status,
    success: r.success,
    evaluation:
      typeof r.evaluation === 'string' ? (JSON.parse(r.evaluation) as Record<string, unknown>) : r.evaluation,
    reflectionId: r.reflection_id,
    startedAt: new Date(r.started_at),
    completedAt: r.completed_at === null ? null : new Date(r.completed_at),
  };
}

export class KnexRunRepository implements RunRepository {
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void,
  ) {}

  async insert(actor: Actor, run: NewRun): Promise<boolean> {
    const res: { rows: unknown[] } = await this.db.knex.raw(
      `insert into runs (project_id, run_id, agent_id, task_type, memory_ids_used, api_key_id)
       values (?, ?, ?, ?, ?::uuid[], ?) on conflict (project_id, run_id) do nothing returning run_id`,
      [actor.projectId, run.runId, run.agentId, run.taskType, [...run.memoryIdsUsed], actor.apiKeyId],
    );
    return res.rows.length > 0;
  }

  async get(projectId: string, runId: string): Promise<Run | undefined> {
    const row = (await this.db.knex('runs').where({ project_id: projectId, run_id: runId }).first()) as
      RunRow | undefined;
    return row ? runFromRow(row) : undefined;
  }

  async complete(actor: Actor, c: RunCompletion): Promise<Run | undefined> {
    const run = await this.db.knex.transaction(async (trx) => {
      const rows = (await trx('runs')
        .where({ project_id: actor.projectId, run_id: c.runId, status: 'started' })
        .update({
          status: 'completed',
          success: c.success,
          evaluation: JSON.stringify(c.evaluation),
          reflection_id: c.reflectionId,
          completed_at: trx.fn.now(),
        })
        .returning('*')) as RunRow[];
      const row = rows[0];
      if (!row) return undefined;
      const done = runFromRow(row);
      for (const memoryId of done.memoryIdsUsed) {
        await upsertVote(trx, actor, {
          memoryId,
          voterAgentId: done.agentId,
          taskId: done.runId,
          vote: c.vote,
          context: `run ${done.runId} (${done.taskType}) ${c.success ? 'succeeded' : 'failed'}`,
        });
      }
      await appendEvent(trx, {
        eventType: 'RUN_COMPLETED',
        projectId: actor.projectId,
        agentId: done.agentId,
        memoryId: c.reflectionId,
        apiKeyId: actor.apiKeyId,
        details: {
          run_id: done.runId,
          task_type: done.taskType,
          success: c.success,
          vote: c.vote,
          memory_ids_used: [...done.memoryIdsUsed],
          reflection_id: c.reflectionId,
        },
      });
      return done;
    });
    if (run) this.onCommit();
    return run;
  }
}
