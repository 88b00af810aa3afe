import type { Knex } from 'knex';
import { whereVisible } from '@engram/auth';
import { withHnswEfSearch, type Database } from '@engram/db';
import { vectorLiteral } from '@engram/embeddings';
import { EFFECTIVENESS_SQL, MEMORY_COLUMNS, memoryFromRow, type MemoryRow } from '@engram/memories';
import type { PlaybookQuery, PlaybookRepository } from '../domain/playbook.ts';
import type { PlaybookCandidate } from '../domain/playbook-ranking.ts';

/**
 * The task-type record of a memory: of the agents whose completed runs of the task type used it, how
 * many last succeeded (helpful) or failed (harmful) with it. Each agent counts once, by its latest
 * such run, like a ballot (docs/decisions.md): one agent starting and completing many runs moves the
 * record by one.
 */
const TASK_VOTES = (vote: 'helpful' | 'harmful') => `(select count(*) from (
    select distinct on (r.agent_id) r.success from runs r
     where r.project_id = memories.project_id and r.status = 'completed' and r.task_type = ?
       and memories.id = any(r.memory_ids_used)
     order by r.agent_id, r.completed_at desc, r.run_id desc) latest
  where latest.success = ${vote === 'helpful' ? 'true' : 'false'})`;

/**
 * Playbook candidates on pgvector: visibility, namespace, types and min_effectiveness in the WHERE
 * clause (before the LIMIT), ordered by the HNSW index with an iterative scan, effectiveness and the
 * task-type record computed per row from memory_votes and runs (tables of ace-feedback).
 */
export class KnexPlaybookRepository implements PlaybookRepository {
  constructor(private readonly db: Database) {}

  async candidates(q: PlaybookQuery, limit: number, offset: number): Promise<PlaybookCandidate[]> {
    const vec = vectorLiteral(q.vector);
    const ef = Math.min(1000, Math.max(40, (limit + offset) * 2));
    return withHnswEfSearch(this.db, ef, async (trx) => {
      const columns: (string | Knex.Raw)[] = [
        ...MEMORY_COLUMNS.map((c) => `memories.${c}`),
        trx.raw('1 - (embedding <=> ?::vector) as score', [vec]),
        trx.raw(`${EFFECTIVENESS_SQL} as effectiveness`),
      ];
      if (q.taskType !== undefined) {
        columns.push(trx.raw(`${TASK_VOTES('helpful')} as task_helpful`, [q.taskType]));
        columns.push(trx.raw(`${TASK_VOTES('harmful')} as task_harmful`, [q.taskType]));
      }
      const qb = trx('memories')
        .select(columns)
        .where('memories.namespace', q.namespace)
        .where('memories.is_deprecated', false)
        .whereNotNull('memories.embedding')
        .whereIn('memories.memory_type', [...q.memoryTypes]);
      whereVisible(qb, q.reader);
      if (q.minEffectiveness !== undefined)
        void qb.whereRaw(`${EFFECTIVENESS_SQL} > ?`, [q.minEffectiveness]);
      const rows = (await qb
        .orderByRaw('embedding <=> ?::vector', [vec])
        .limit(limit)
        .offset(offset)) as (MemoryRow & {
        score: number | string;
        effectiveness: number | string;
        task_helpful?: number | string;
        task_harmful?: number | string;
      })[];
      return rows.map((r) => ({
        ...memoryFromRow(r),
        score: Number(r.score),
        effectiveness: Number(r.effectiveness),
        taskHelpful: Number(r.task_helpful ?? 0),
        taskHarmful: Number(r.task_harmful ?? 0),
      }));
    });
  }
}
