import { effectivenessScore, type VoteCounts } from '@engram/memory-model';
import type { Knex } from 'knex';

export interface Effectiveness extends VoteCounts {
  /** effectivenessScore(helpful, harmful) of @engram/memory-model, in [-1, 1]. */
  readonly score: number;
}

/**
 * SQL for the effectiveness of `memories.id` (a correlated sub-select on memory_votes, owned by
 * ace-feedback), for ORDER BY and WHERE clauses of reads. The same formula as effectivenessScore of
 * @engram/memory-model, written in SQL so that a read can sort and filter by it (every vote is
 * helpful or harmful, so count(*) is helpful + harmful); test/integration/effectiveness-sql.test.ts
 * keeps the two equal.
 */
export const EFFECTIVENESS_SQL = `coalesce((select (count(*) filter (where v.vote = 'helpful') - count(*) filter (where v.vote = 'harmful'))::float8
  / (count(*) + 1) from memory_votes v where v.project_id = memories.project_id and v.memory_id = memories.id), 0)`;

/** Vote counts and effectiveness of the given memories of one project (0/0/0 when unvoted). */
export async function loadEffectiveness(
  knex: Knex,
  projectId: string,
  memoryIds: readonly string[],
): Promise<Map<string, Effectiveness>> {
  const out = new Map<string, Effectiveness>();
  if (memoryIds.length === 0) return out;
  const rows: (VoteCountRow & { memory_id: string })[] = await voteCounts(knex.select('memory_id'), knex)
    .where('project_id', projectId)
    .whereIn('memory_id', [...memoryIds])
    .groupBy('memory_id');
  for (const r of rows) out.set(r.memory_id, effectivenessOf(r));
  return out;
}

/** The vote counts and effectiveness of one memory (0/0/0 when unvoted). */
export async function countVotes(
  knex: Knex | Knex.Transaction,
  projectId: string,
  memoryId: string,
): Promise<Effectiveness> {
  const row = (await voteCounts(knex.queryBuilder(), knex)
    .where({ project_id: projectId, memory_id: memoryId })
    .first()) as VoteCountRow | undefined;
  return effectivenessOf(row ?? { helpful: 0, harmful: 0 });
}

interface VoteCountRow {
  helpful: string | number;
  harmful: string | number;
}

/** Helpful and harmful ballots of memory_votes, as the columns helpful and harmful. */
function voteCounts(qb: Knex.QueryBuilder, knex: Knex): Knex.QueryBuilder {
  return qb
    .select(knex.raw(`count(*) filter (where vote = 'helpful') as helpful`))
    .select(knex.raw(`count(*) filter (where vote = 'harmful') as harmful`))
    .from('memory_votes');
}

function effectivenessOf(r: VoteCountRow): Effectiveness {
  const helpful = Number(r.helpful);
  const harmful = Number(r.harmful);
  return { helpful, harmful, score: effectivenessScore(helpful, harmful) };
}
