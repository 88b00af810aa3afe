import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';
import { bindsBinaryVectors, withHnswEfSearch, type Database } from '@engram/db';
import { vectorParam } from '@engram/embeddings';
import { EFFECTIVENESS_SQL } from '../effectiveness.ts';
import { memoryColumns, memoryFromRow, type MemoryRow } from '../memory-row.ts';
import { whereSearchable, whereVisible } from '../visibility.ts';
import { efSearch, type SearchHit } from './vector.ts';

export interface PlaybookSearch {
  readonly reader: Reader;
  readonly namespace: string;
  readonly vector: readonly number[];
  readonly memoryTypes: readonly string[];
  /** Keeps memories whose effectiveness is strictly above this value (in SQL, before the LIMIT). */
  readonly minEffectiveness?: number | undefined;
  readonly taskType?: string | undefined;
}

export interface PlaybookHit extends SearchHit {
  /** effectivenessScore (@engram/memory-model) over all votes, in [-1, 1]. */
  readonly effectiveness: number;
  /**
   * Agents whose latest completed run of the requested task type that used the memory succeeded /
   * failed (each agent counts once; 0 without a task type).
   */
  readonly taskHelpful: number;
  readonly taskHarmful: number;
}

/** The smallest HNSW candidate list of a playbook read (its pages are short). */
const PLAYBOOK_EF_SEARCH_MIN = 40;

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
export function playbookCandidates(
  db: Database,
  q: PlaybookSearch,
  limit: number,
  offset: number,
): Promise<PlaybookHit[]> {
  const vec = vectorParam(q.vector, bindsBinaryVectors(db.engine));
  return withHnswEfSearch(db, efSearch(limit + offset, PLAYBOOK_EF_SEARCH_MIN), async (trx) => {
    const columns: (string | Knex.Raw)[] = [
      ...memoryColumns(),
      trx.raw('1 - (embedding <=> ?::vector) as score', [vec]),
      trx.raw(`${EFFECTIVENESS_SQL} as effectiveness`),
    ];
    if (q.taskType !== undefined) {
      columns.push(trx.raw(`${TASK_VOTES('helpful')} as task_helpful`, [q.taskType]));
      columns.push(trx.raw(`${TASK_VOTES('harmful')} as task_harmful`, [q.taskType]));
    }
    const qb = whereSearchable(trx('memories').select(columns), q.namespace).whereIn('memories.memory_type', [
      ...q.memoryTypes,
    ]);
    whereVisible(qb, q.reader);
    if (q.minEffectiveness !== undefined) void qb.whereRaw(`${EFFECTIVENESS_SQL} > ?`, [q.minEffectiveness]);
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
