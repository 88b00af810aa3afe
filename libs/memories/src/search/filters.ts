import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';

/**
 * What a search asks of the memories table: the reader, the namespace and the optional filters
 * (type, scope, author, session, entity), all applied in SQL before the LIMIT.
 */
export interface MemorySearch {
  readonly reader: Reader;
  readonly namespace: string;
  readonly vector: readonly number[];
  /** The query text (lexical channel of hybrid queries). */
  readonly text?: string | undefined;
  readonly memoryTypes: readonly string[];
  readonly scopes: readonly string[];
  readonly authors: readonly string[];
  readonly sessionId?: string | undefined;
  readonly entityId?: string | undefined;
  readonly minScore?: number | undefined;
}

/** The optional filters of a search (type, scope, author, session, entity), as WHERE clauses. */
export function applyFilters(qb: Knex.QueryBuilder, q: MemorySearch): void {
  if (q.memoryTypes.length > 0) void qb.whereIn('memories.memory_type', [...q.memoryTypes]);
  if (q.scopes.length > 0) void qb.whereIn('memories.scope', [...q.scopes]);
  if (q.authors.length > 0) void qb.whereIn('memories.agent_id', [...q.authors]);
  if (q.sessionId !== undefined) void qb.where('memories.session_id', q.sessionId);
  if (q.entityId !== undefined) void qb.where('memories.entity_id', q.entityId);
}
