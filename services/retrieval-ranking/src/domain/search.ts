import type { Reader } from '@engram/auth';
import type { StoredMemory } from '@engram/memories';

/** A search inside what the reader may see (filters applied in SQL, before the LIMIT). */
export interface SearchQuery {
  readonly reader: Reader;
  readonly namespace: string;
  readonly vector: number[];
  /** The query text (lexical channel of hybrid queries). */
  readonly text?: string | undefined;
  readonly memoryTypes: readonly string[];
  readonly scopes: readonly string[];
  readonly authors: readonly string[];
  readonly sessionId?: string | undefined;
  readonly entityId?: string | undefined;
  readonly minScore?: number | undefined;
}

export interface ScoredMemory extends StoredMemory {
  /** Cosine similarity. */
  readonly score: number;
  /** The Okapi BM25 score, on rows found by the lexical channel. */
  readonly lexicalScore?: number | undefined;
}

/** Votes and provenance depth of one memory, the inputs of trust-weighted ranking besides the row. */
export interface MemorySignals {
  readonly helpful: number;
  readonly harmful: number;
  /** Undefined when the memory has no provenance record. */
  readonly depth?: number | undefined;
}

export interface SearchRepository {
  /** Candidates in order of similarity, `limit` of them after skipping `offset`. */
  search(q: SearchQuery, limit: number, offset: number): Promise<ScoredMemory[]>;
  /**
   * Full-text candidates of `q.text` (Postgres 'simple' configuration, so error codes, paths and
   * ids match exactly), best first by BM25-style weight (IDF over the visible matching set), at
   * most `limit`; each carries its cosine similarity as score.
   */
  lexicalSearch(q: SearchQuery, limit: number): Promise<ScoredMemory[]>;
  /** Votes and provenance depth of the given memories of one project. */
  signals(projectId: string, ids: readonly string[]): Promise<Map<string, MemorySignals>>;
  /** The store's pinned embedding space, if memory-store has pinned one yet. */
  embeddingSpace(): Promise<{ provider: string; model: string; dimensions: number } | undefined>;
}
