import { whereVisible } from '@engram/auth';
import { DEFAULT_HNSW_EF_SEARCH, withHnswEfSearch, type Database } from '@engram/db';
import type { Knex } from 'knex';
import { vectorLiteral } from '@engram/embeddings';
import { loadEffectiveness, MEMORY_COLUMNS, memoryFromRow, type MemoryRow } from '@engram/memories';
import type { MemorySignals, ScoredMemory, SearchQuery, SearchRepository } from '../domain/search.ts';
import { lexicalSearch } from './lexical-search.ts';
import { applyFilters } from './search-filters.ts';

interface EmbeddingSpaceRow {
  provider: string;
  model: string;
  dimensions: number;
}

/**
 * Search on pgvector and Postgres full text. Every filter (project, visibility, namespace, type,
 * scope, author, session, entity) is in the WHERE clause and the HNSW scan is iterative (pgvector
 * >= 0.8, hnsw.iterative_scan), so a filtered top_k is still full.
 */
/**
 * The smallest HNSW candidate list. Measured on 100k hash-embedder memories (100 queries, top 10,
 * iterative scan) with the index built as HNSW_INDEX_PARAMS (m 24, ef_construction 200): recall@10
 * 0.94 at 100, 0.955 at 150, 0.96 at 200 (0.954 to 0.962 over four builds), 0.97 at 400, touching a
 * median of 3.2k, 4.3k, 5.4k and 8.8k buffers per query (SQL median on two busy cores: 4.2, 5.2,
 * 6.4 and 11 ms). 200 is the cheapest value that stays above 0.95 on every build; pgvector's default
 * index (m 16, ef_construction 64) gave 0.83 at 200 (3.6k buffers, 4.9 ms) and 0.90 at 400.
 */
export const HNSW_EF_SEARCH_MIN = DEFAULT_HNSW_EF_SEARCH;

/**
 * ef_search for a scan that must return `wanted` rows: twice that, at least the minimum (the
 * session's HNSW_EF_SEARCH), at most 1000.
 */
export function efSearch(wanted: number, min: number = HNSW_EF_SEARCH_MIN): number {
  return Math.min(1000, Math.max(min, wanted * 2));
}

/**
 * The vector search statement: the reader's visible rows of the namespace that pass the filters, by
 * cosine distance to `vector` (SQL for the query vector: a bound literal here, the bench's pgbench
 * script reads it from a table), `limit` rows after `offset`, with score = cosine similarity.
 */
export function nearestQuery(
  knex: Knex,
  q: SearchQuery,
  vector: Knex.Raw,
  limit: number,
  offset: number,
): Knex.QueryBuilder {
  const qb = knex('memories')
    .select([
      ...MEMORY_COLUMNS.map((c) => `memories.${c}`),
      knex.raw('1 - (embedding <=> ?) as score', [vector]),
    ])
    .where('memories.namespace', q.namespace)
    .where('memories.is_deprecated', false)
    .whereNotNull('memories.embedding');
  whereVisible(qb, q.reader);
  applyFilters(qb, q);
  if (q.minScore !== undefined) void qb.whereRaw('1 - (embedding <=> ?) >= ?', [vector, q.minScore]);
  return qb.orderByRaw('embedding <=> ?', [vector]).limit(limit).offset(offset);
}

/** How long the pinned embedding space is cached (it changes only through `engram reembed`). */
const SPACE_TTL_MS = 5_000;

export class KnexSearchRepository implements SearchRepository {
  private space: { value: EmbeddingSpaceRow | undefined; until: number } | undefined;

  constructor(private readonly db: Database) {}

  search(q: SearchQuery, limit: number, offset: number): Promise<ScoredMemory[]> {
    // Sessions start with iterative scans and HNSW_EF_SEARCH (@engram/db): the common search is one
    // statement; a deeper page raises ef_search for its own transaction only.
    return withHnswEfSearch(this.db, efSearch(limit + offset, this.db.hnswEfSearch), (knex) =>
      this.nearest(knex, q, limit, offset),
    );
  }

  private async nearest(knex: Knex, q: SearchQuery, limit: number, offset: number): Promise<ScoredMemory[]> {
    const vector = knex.raw('?::vector', [vectorLiteral(q.vector)]);
    const rows = (await nearestQuery(knex, q, vector, limit, offset)) as (MemoryRow & {
      score: number | string;
    })[];
    return rows.map((r) => ({ ...memoryFromRow(r), score: Number(r.score) }));
  }

  lexicalSearch(q: SearchQuery, limit: number): Promise<ScoredMemory[]> {
    return lexicalSearch(this.db.read, q, limit);
  }

  async signals(projectId: string, ids: readonly string[]): Promise<Map<string, MemorySignals>> {
    const out = new Map<string, MemorySignals>();
    if (ids.length === 0) return out;
    const [votes, depths] = await Promise.all([
      loadEffectiveness(this.db.read, projectId, ids),
      this.db
        .read('memory_provenance')
        .select('memory_id', 'depth')
        .where('project_id', projectId)
        .whereIn('memory_id', [...ids]) as Promise<{ memory_id: string; depth: number }[]>,
    ]);
    const depth = new Map(depths.map((d) => [d.memory_id, Number(d.depth)]));
    for (const id of ids) {
      const v = votes.get(id);
      out.set(id, { helpful: v?.helpful ?? 0, harmful: v?.harmful ?? 0, depth: depth.get(id) });
    }
    return out;
  }

  async embeddingSpace(): Promise<EmbeddingSpaceRow | undefined> {
    if (this.space && this.space.until > Date.now()) return this.space.value;
    const row = (await this.db.read('embedding_space').where({ id: 1 }).first()) as
      (EmbeddingSpaceRow & { hnsw_ef_search?: number | null }) | undefined;
    const value = row ? { provider: row.provider, model: row.model, dimensions: row.dimensions } : undefined;
    // ef_search is pinned with the space: sessions follow it (a pin made after this process
    // started, or changed by `engram reembed`).
    const ef = row?.hnsw_ef_search;
    if (ef !== undefined && ef !== null && Number(ef) !== this.db.hnswEfSearch)
      await this.db.setHnswEfSearch(Number(ef));
    // An unpinned store is not cached: memory-store pins the space on its first start.
    this.space = value ? { value, until: Date.now() + SPACE_TTL_MS } : undefined;
    return value;
  }
}
