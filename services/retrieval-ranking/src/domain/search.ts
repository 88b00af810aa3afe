import type { Reader } from '@engram/auth';
import type { StoredMemory } from '@engram/memory-model';
import type { DateInterval } from './calendar.ts';

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
  /**
   * The intervals the question names, read against as_of (temporal-expressions.ts): hybrid ranking
   * raises candidates dated inside them. Not a filter: SQL never sees them.
   */
  readonly intervals?: readonly DateInterval[] | undefined;
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
   * Lexical candidates of `q.text`, best first by Okapi BM25 (statistics over the rows the reader
   * may see; error codes, paths and ids stay whole tokens), at most `limit`; each carries its cosine
   * similarity as score and its BM25 score as lexicalScore.
   */
  lexicalSearch(q: SearchQuery, limit: number): Promise<ScoredMemory[]>;
  /** Votes and provenance depth of the given memories of one project. */
  signals(projectId: string, ids: readonly string[]): Promise<Map<string, MemorySignals>>;
  /** The store's pinned embedding space, if memory-store has pinned one yet. */
  embeddingSpace(): Promise<{ provider: string; model: string; dimensions: number } | undefined>;
}
