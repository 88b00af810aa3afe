import type { Database } from '@engram/db';
import type { Actor, SessionRepository } from '../domain/ports.ts';
import type { BlockedItem, ProgressSession } from '../domain/progress-session.ts';

interface SessionRow {
  session_id: string;
  agent_id: string;
  completed: string[] | null;
  in_progress: string;
  next: string[] | null;
  blocked: BlockedItem[] | string | null;
  summary: string;
  updated_at: Date | string;
}

function sessionFromRow(r: SessionRow): ProgressSession {
  const blocked =
    typeof r.blocked === 'string' ? (JSON.parse(r.blocked) as BlockedItem[]) : (r.blocked ?? []);
  return {
    sessionId: r.session_id,
    agentId: r.agent_id,
    completed: r.completed ?? [],
    inProgress: r.in_progress,
    next: r.next ?? [],
    blocked,
    summary: r.summary,
    updatedAt: new Date(r.updated_at),
  };
}

export class KnexSessionRepository implements SessionRepository {
  constructor(private readonly db: Database) {}

  async insert(actor: Actor, s: ProgressSession): Promise<boolean> {
    const res: { rows: unknown[] } = await this.db.knex.raw(
      `insert into progress_sessions (project_id, session_id, agent_id, api_key_id) values (?, ?, ?, ?)
       on conflict (project_id, session_id) do nothing returning session_id`,
      [actor.projectId, s.sessionId, s.agentId, actor.apiKeyId],
    );
    return res.rows.length > 0;
  }

  async get(projectId: string, sessionId: string): Promise<ProgressSession | undefined> {
    const row = (await this.db
      .knex('progress_sessions')
      .where({ project_id: projectId, session_id: sessionId })
      .first()) as SessionRow | undefined;
    return row ? sessionFromRow(row) : undefined;
  }

  async update(
    projectId: string,
    sessionId: string,
    change: (current: ProgressSession) => ProgressSession,
  ): Promise<ProgressSession | undefined> {
    return this.db.knex.transaction(async (trx) => {
      const row = (await trx('progress_sessions')
        .where({ project_id: projectId, session_id: sessionId })
        .forUpdate()
        .first()) as SessionRow | undefined;
      if (!row) return undefined;
      const next = change(sessionFromRow(row));
      const [updated] = (await trx('progress_sessions')
        .where({ project_id: projectId, session_id: sessionId })
        .update({
          completed: trx.raw('?::text[]', [[...next.completed]]),
          in_progress: next.inProgress,
          next: trx.raw('?::text[]', [[...next.next]]),
          blocked: JSON.stringify(next.blocked),
          summary: next.summary,
          updated_at: trx.fn.now(),
        })
        .returning('*')) as SessionRow[];
      return updated ? sessionFromRow(updated) : undefined;
    });
  }
}
