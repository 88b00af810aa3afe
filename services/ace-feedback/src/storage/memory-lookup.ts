import { whereVisible, type Reader } from '@engram/auth';
import { withHnswEfSearch, type Database } from '@engram/db';
import {
  EFFECTIVENESS_SQL,
  loadEffectiveness,
  MEMORY_COLUMNS,
  memoryFromRow,
  type MemoryRow,
} from '@engram/memories';
import type { StoredMemory } from '@engram/memory-model';
import type { MemoryLookup, SimilarPair } from '../domain/ports.ts';

const VOTED = `exists (select 1 from memory_votes v where v.project_id = memories.project_id and v.memory_id = memories.id)`;

/** Reads of memory-store's tables for the feedback loop, always inside the reader's visibility (SQL). */
export class KnexMemoryLookup implements MemoryLookup {
  constructor(private readonly db: Database) {}

  async visibleIds(reader: Reader, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const qb = this.db
      .read('memories')
      .select('memories.id')
      .whereIn('memories.id', [...ids]);
    whereVisible(qb, reader);
    const rows = (await qb) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  async byIds(reader: Reader, ids: readonly string[]): Promise<StoredMemory[]> {
    if (ids.length === 0) return [];
    const qb = this.db
      .read('memories')
      .select(MEMORY_COLUMNS.map((c) => `memories.${c}`))
      .whereIn('memories.id', [...ids]);
    whereVisible(qb, reader);
    return ((await qb) as MemoryRow[]).map(memoryFromRow);
  }

  async deepestProvenance(projectId: string, ids: readonly string[]): Promise<number | undefined> {
    if (ids.length === 0) return undefined;
    const row = (await this.db
      .read('memory_provenance')
      .max('depth as depth')
      .where('project_id', projectId)
      .whereIn('memory_id', [...ids])
      .first()) as { depth: number | string | null } | undefined;
    return row?.depth === null || row?.depth === undefined ? undefined : Number(row.depth);
  }

  async byEffectiveness(
    reader: Reader,
    namespace: string,
    threshold: number,
    side: 'above' | 'below',
    limit: number,
    offset: number,
  ): Promise<(StoredMemory & { effectiveness: number })[]> {
    const knex = this.db.read;
    const qb = knex('memories')
      .select([
        ...MEMORY_COLUMNS.map((c) => `memories.${c}`),
        knex.raw(`${EFFECTIVENESS_SQL} as effectiveness`),
      ])
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

  /**
   * For each of the newest `maxMemories` visible live memories of the namespace, its
   * `neighbours` nearest visible live memories through the HNSW index (a lateral ORDER BY embedding
   * <=> the memory's embedding LIMIT k: one index descent per memory, O(n log n)), kept when at least
   * minSimilarity similar; each pair once.
   */
  async similarPairs(
    reader: Reader,
    namespace: string,
    minSimilarity: number,
    { neighbours, maxMemories }: { neighbours: number; maxMemories: number },
  ): Promise<SimilarPair[]> {
    return withHnswEfSearch(this.db, 100, async (trx) => {
      const outer = trx('memories')
        .select('memories.id', 'memories.embedding')
        .where('memories.namespace', namespace)
        .where('memories.is_deprecated', false)
        .whereNotNull('memories.embedding');
      whereVisible(outer, reader);
      void outer.orderBy('memories.created_at', 'desc').limit(maxMemories);
      const inner = trx('memories as m')
        .select('m.id', trx.raw('1 - (m.embedding <=> a.embedding) as similarity'))
        .where('m.namespace', namespace)
        .where('m.is_deprecated', false)
        .whereNotNull('m.embedding')
        .whereRaw('m.id <> a.id');
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

  effectiveness(projectId: string, ids: readonly string[]) {
    return loadEffectiveness(this.db.read, projectId, ids);
  }
}
