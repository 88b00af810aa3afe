import type { Knex } from 'knex';
import type { SearchQuery } from '../domain/search.ts';

/** The optional filters of a search (type, scope, author, session, entity), as WHERE clauses. */
export function applyFilters(qb: Knex.QueryBuilder, q: SearchQuery): void {
  if (q.memoryTypes.length > 0) void qb.whereIn('memories.memory_type', [...q.memoryTypes]);
  if (q.scopes.length > 0) void qb.whereIn('memories.scope', [...q.scopes]);
  if (q.authors.length > 0) void qb.whereIn('memories.agent_id', [...q.authors]);
  if (q.sessionId !== undefined) void qb.where('memories.session_id', q.sessionId);
  if (q.entityId !== undefined) void qb.where('memories.entity_id', q.entityId);
}
