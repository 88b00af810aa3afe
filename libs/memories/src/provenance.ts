import type { Knex } from 'knex';

/** The provenance depth of each of the given memories of one project that has a provenance record. */
export async function provenanceDepths(
  knex: Knex,
  projectId: string,
  memoryIds: readonly string[],
): Promise<Map<string, number>> {
  if (memoryIds.length === 0) return new Map();
  const rows = (await knex('memory_provenance')
    .select('memory_id', 'depth')
    .where('project_id', projectId)
    .whereIn('memory_id', [...memoryIds])) as { memory_id: string; depth: number }[];
  return new Map(rows.map((d) => [d.memory_id, Number(d.depth)]));
}

/** The deepest provenance depth among the memories, undefined when none has provenance. */
export async function deepestProvenance(
  knex: Knex,
  projectId: string,
  memoryIds: readonly string[],
): Promise<number | undefined> {
  if (memoryIds.length === 0) return undefined;
  const row = (await knex('memory_provenance')
    .max('depth as depth')
    .where('project_id', projectId)
    .whereIn('memory_id', [...memoryIds])
    .first()) as { depth: number | string | null } | undefined;
  return row?.depth === null || row?.depth === undefined ? undefined : Number(row.depth);
}
