import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';
import { withHnswEfSearch, type Database } from '@engram/db';
import type { StoredMemory } from '@engram/memory-model';
import { EFFECTIVENESS_SQL } from './effectiveness.ts';
import { MEMORY_COLUMNS, memoryColumns, memoryFromRow, type MemoryRow } from './memory-row.ts';
import { whereSearchable, whereVisible } from './visibility.ts';

// Reads of single memories and of lists for the feedback loop and the security admin: by id, by
// effectiveness, by similarity, flagged. Every read of another agent's memories is inside visibility.

const VOTED = `exists (select 1 from memory_votes v where v.project_id = memories.project_id and v.memory_id = memories.id)`;

/** The ids among `ids` naming memories the reader may see (deprecated ones included). */
export async function visibleIds(knex: Knex, reader: Reader, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const qb = knex('memories')
    .select('memories.id')
    .whereIn('memories.id', [...ids]);
  whereVisible(qb, reader);
  const rows = (await qb) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/** The memories the reader may see, by id (live or deprecated). */
export async function visibleByIds(
  knex: Knex,
  reader: Reader,
  ids: readonly string[],
): Promise<StoredMemory[]> {
  if (ids.length === 0) return [];
  const qb = knex('memories')
    .select(memoryColumns())
    .whereIn('memories.id', [...ids]);
  whereVisible(qb, reader);
  return ((await qb) as MemoryRow[]).map(memoryFromRow);
}

/**
 * Live voted memories of a namespace the reader may see whose effectiveness is strictly above
 * (or strictly below) the threshold, best (or worst) first; `limit` of them after skipping `offset`.
 */
export async function byEffectiveness(
  knex: Knex,
  reader: Reader,
  namespace: string,
  threshold: number,
  side: 'above' | 'below',
  limit: number,
  offset: number,
): Promise<(StoredMemory & { effectiveness: number })[]> {
  const qb = knex('memories')
    .select([...memoryColumns(), knex.raw(`${EFFECTIVENESS_SQL} as effectiveness`)])
    .where('memories.namespace', namespace)
    .where('memories.is_deprecated', false)
    .whereRaw(VOTED)
    .whereRaw(`${EFFECTIVENESS_SQL} ${side === 'above' ? '>' : '<'} ?`, [threshold]);
  whereVisible(qb, reader);
  const rows = (await qb
    .orderBy('effectiveness', side === 'above' ? 'desc' : 'asc')
    .orderBy('memories.created_at', 'desc')
    .orderBy('memories.id')
    .limit(limit)
    .offset(offset)) as (MemoryRow & { effectiveness: number | string })[];
  return rows.map((r) => ({ ...memoryFromRow(r), effectiveness: Number(r.effectiveness) }));
}

/** A pair of live memories whose embeddings are close (a.id < b.id). */
export interface SimilarPair {
  readonly a: string;
  readonly b: string;
  readonly similarity: number;
}

/**
 * For each of the newest `maxMemories` visible live memories of the namespace, its
 * `neighbours` nearest visible live memories through the HNSW index (a lateral ORDER BY embedding
 * <=> the memory's embedding LIMIT k: one index descent per memory, O(n log n)), kept when at least
 * minSimilarity similar; each pair once, most similar first.
 */
export function similarPairs(
  db: Database,
  reader: Reader,
  namespace: string,
  minSimilarity: number,
  { neighbours, maxMemories }: { neighbours: number; maxMemories: number },
): Promise<SimilarPair[]> {
  return withHnswEfSearch(db, 100, async (trx) => {
    const outer = whereSearchable(trx('memories').select('memories.id', 'memories.embedding'), namespace);
    whereVisible(outer, reader);
    void outer.orderBy('memories.created_at', 'desc').limit(maxMemories);
    const inner = whereSearchable(
      trx('memories as m').select('m.id', trx.raw('1 - (m.embedding <=> a.embedding) as similarity')),
      namespace,
      'm',
    ).whereRaw('m.id <> a.id');
    whereVisible(inner, reader, 'm');
    void inner.orderByRaw('m.embedding <=> a.embedding').limit(neighbours);
    const rows = (await trx
      .select('a.id as a', 'b.id as b', 'b.similarity')
      .from(outer.as('a'))
      .joinRaw('cross join lateral ? as b', [trx.raw('?', [inner])])
      .where('b.similarity', '>=', minSimilarity)) as {
      a: string;
      b: string;
      similarity: number | string;
    }[];
    const pairs = new Map<string, SimilarPair>();
    for (const r of rows) {
      const [x, y] = r.a < r.b ? [r.a, r.b] : [r.b, r.a];
      pairs.set(`${x}/${y}`, { a: x, b: y, similarity: Number(r.similarity) });
    }
    return [...pairs.values()].sort((p, q) => q.similarity - p.similarity || (p.a < q.a ? -1 : 1));
  });
}

/** A position in a newest-first listing: created_at as exact ISO text (microseconds, UTC) and the id. */
export interface ListPosition {
  readonly at: string;
  readonly id: string;
}

/** created_at as exact ISO text (microseconds, UTC): a keyset cursor must not lose precision. */
export const CREATED_AT_ISO_SQL = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Memories of a project (of one namespace, when given) that carry content flags, newest first,
 * `limit` of them after `after` (keyset on created_at, id). An administrator's listing: no
 * visibility predicate, the whole project.
 */
export async function flaggedMemories(
  knex: Knex,
  projectId: string,
  namespace: string | undefined,
  after: ListPosition | undefined,
  limit: number,
): Promise<{ memory: StoredMemory; position: ListPosition }[]> {
  const qb = knex('memories')
    .select(MEMORY_COLUMNS)
    .select(knex.raw(`${CREATED_AT_ISO_SQL} as at`))
    .where('project_id', projectId)
    .whereRaw('cardinality(content_flags) > 0')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (namespace !== undefined) void qb.where('namespace', namespace);
  if (after) void qb.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [after.at, after.id]);
  const rows = (await qb) as (MemoryRow & { at: string })[];
  return rows.map((row) => ({ memory: memoryFromRow(row), position: { at: row.at, id: row.id } }));
}

/** One memory of a project by id, whoever wrote it (an administrator's read), or undefined. */
export async function memoryInProject(
  knex: Knex,
  projectId: string,
  id: string,
): Promise<StoredMemory | undefined> {
  const row = (await knex('memories').select(MEMORY_COLUMNS).where({ project_id: projectId, id }).first()) as
    MemoryRow | undefined;
  return row ? memoryFromRow(row) : undefined;
}

/** Whether the database holds memory-store's memories table (a store Engram has started on). */
export function hasMemoriesTable(knex: Knex): Promise<boolean> {
  return knex.schema.hasTable('memories');
}
