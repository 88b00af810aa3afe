import { bindsBinaryVectors, type Database } from '@engram/db';
import { lexicalSearch, loadEffectiveness, nearestMemories, provenanceDepths } from '@engram/memories';
import type { MemorySignals, ScoredMemory, SearchQuery, SearchRepository } from '../domain/search.ts';

interface EmbeddingSpaceRow {
  provider: string;
  model: string;
  dimensions: number;
}

/** How long the pinned embedding space is cached (it changes only through `engram reembed`). */
const SPACE_TTL_MS = 5_000;

/**
 * Search on pgvector and Postgres full text through @engram/memories (the vector and lexical
 * statements, votes and provenance); the pinned embedding space and its ef_search from the pin.
 */
export class KnexSearchRepository implements SearchRepository {
  private space: { value: EmbeddingSpaceRow | undefined; until: number } | undefined;

  /**
   * @param lexicalBudget rounds a lexical query may take (LEXICAL_EXACT=false: one, the bounded cut;
   *   Infinity: until its top k is proven exact)
   */
  constructor(
    private readonly db: Database,
    private readonly lexicalBudget = 1,
  ) {}

  search(q: SearchQuery, limit: number, offset: number): Promise<ScoredMemory[]> {
    return nearestMemories(this.db, q, limit, offset);
  }

  lexicalSearch(q: SearchQuery, limit: number): Promise<ScoredMemory[]> {
    return lexicalSearch(this.db.read, q, limit, {
      maxRounds: this.lexicalBudget,
      binaryVector: bindsBinaryVectors(this.db.engine),
    });
  }

  async signals(projectId: string, ids: readonly string[]): Promise<Map<string, MemorySignals>> {
    const out = new Map<string, MemorySignals>();
    if (ids.length === 0) return out;
    const [votes, depth] = await Promise.all([
      loadEffectiveness(this.db.read, projectId, ids),
      provenanceDepths(this.db.read, projectId, ids),
    ]);
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
