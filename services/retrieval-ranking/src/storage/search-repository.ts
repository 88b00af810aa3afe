import { whereVisible } from '@engram/auth';
import type { Database } from '@engram/db';
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
 * The smallest HNSW candidate list. Measured on 100k hash-embedder vectors (docs/benchmarks.md):
 * recall@10 0.78 at 100, 0.87 at 200, 0.92 at 400; 200 is the compromise with latency.
 */
export const HNSW_EF_SEARCH_MIN = 200;

/** ef_search for a scan that must return `wanted` rows: twice that, at least the minimum, at most 1000. */
export function efSearch(wanted: number): number {
  return Math.min(1000, Math.max(HNSW_EF_SEARCH_MIN, wanted * 2));
}

/** How long the pinned embedding space is cached (it changes only through `engram reembed`). */
const SPACE_TTL_MS = 5_000;

export class KnexSearchRepository implements SearchRepository {
  private space: { value: EmbeddingSpaceRow | undefined; until: number } | undefined;

  constructor(private readonly db: Database) {}

  async search(q: SearchQuery, limit: number, offset: number): Promise<ScoredMemory[]> {
    const vec = vectorLiteral(q.vector);
    return this.db.read.transaction(async (trx) => {
      // One round trip for both settings (set_config with is_local = true lasts for this transaction).
      await trx.raw(
        `select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ?, true)`,
        [String(efSearch(limit + offset))],
      );
      const qb = trx('memories')
        .select([
          ...MEMORY_COLUMNS.map((c) => `memories.${c}`),
          trx.raw('1 - (embedding <=> ?::vector) as score', [vec]),
        ])
        .where('memories.namespace', q.namespace)
        .where('memories.is_deprecated', false)
        .whereNotNull('memories.embedding');
      whereVisible(qb, q.reader);
      applyFilters(qb, q);
      if (q.minScore !== undefined) void qb.whereRaw('1 - (embedding <=> ?::vector) >= ?', [vec, q.minScore]);
      const rows = (await qb
        .orderByRaw('embedding <=> ?::vector', [vec])
        .limit(limit)
        .offset(offset)) as (MemoryRow & { score: number | string })[];
      return rows.map((r) => ({ ...memoryFromRow(r), score: Number(r.score) }));
    });
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
      EmbeddingSpaceRow | undefined;
    const value = row ? { provider: row.provider, model: row.model, dimensions: row.dimensions } : undefined;
    // An unpinned store is not cached: memory-store pins the space on its first start.
    this.space = value ? { value, until: Date.now() + SPACE_TTL_MS } : undefined;
    return value;
  }
}
