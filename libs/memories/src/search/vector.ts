import type { Knex } from 'knex';
import { bindsBinaryVectors, DEFAULT_HNSW_EF_SEARCH, withHnswEfSearch, type Database } from '@engram/db';
import { vectorParam } from '@engram/embeddings';
import type { StoredMemory } from '@engram/memory-model';
import { memoryColumns, memoryFromRow, type MemoryRow } from '../memory-row.ts';
import { whereSearchable, whereVisible } from '../visibility.ts';
import { applyFilters, type MemorySearch } from './filters.ts';

/** A memory found by a search, with its cosine similarity (and its BM25 score on lexical hits). */
export interface SearchHit extends StoredMemory {
  /** Cosine similarity. */
  readonly score: number;
  /** The Okapi BM25 score, on rows found by the lexical channel. */
  readonly lexicalScore?: number | undefined;
}

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
 * script reads it from a table), `limit` rows after `offset`, with score = cosine similarity. Every
 * filter (project, visibility, namespace, type, scope, author, session, entity) is in the WHERE
 * clause and the HNSW scan is iterative (pgvector >= 0.8, hnsw.iterative_scan), so a filtered top_k
 * is still full.
 */
export function nearestQuery(
  knex: Knex,
  q: MemorySearch,
  vector: Knex.Raw,
  limit: number,
  offset: number,
): Knex.QueryBuilder {
  const qb = knex('memories').select([
    ...memoryColumns(),
    knex.raw('1 - (embedding <=> ?) as score', [vector]),
  ]);
  whereSearchable(qb, q.namespace);
  whereVisible(qb, q.reader);
  applyFilters(qb, q);
  if (q.minScore !== undefined) void qb.whereRaw('1 - (embedding <=> ?) >= ?', [vector, q.minScore]);
  return qb.orderByRaw('embedding <=> ?', [vector]).limit(limit).offset(offset);
}

/**
 * The nearest visible memories, `limit` of them after `offset`. Sessions start with iterative scans
 * and HNSW_EF_SEARCH (@engram/db): the common search is one statement; a deeper page raises
 * ef_search for its own transaction only.
 */
export function nearestMemories(
  db: Database,
  q: MemorySearch,
  limit: number,
  offset: number,
): Promise<SearchHit[]> {
  return withHnswEfSearch(db, efSearch(limit + offset, db.hnswEfSearch), async (knex) => {
    const vector = knex.raw('?::vector', [vectorParam(q.vector, bindsBinaryVectors(db.engine))]);
    const rows = (await nearestQuery(knex, q, vector, limit, offset)) as (MemoryRow & {
      score: number | string;
    })[];
    return rows.map((r) => ({ ...memoryFromRow(r), score: Number(r.score) }));
  });
}
