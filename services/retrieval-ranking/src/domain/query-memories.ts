import { actingAgent, readerOf, type Principal } from '@engram/auth';
import type { Embedder } from '@engram/embeddings';
import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import type { ReadContext, VerifiedReader } from '@engram/memories';
import { isMemoryType, isScope } from '@engram/memory-model';
import type { QueryInput } from './requests.ts';
import {
  ENTITY_ID_MAX_LENGTH,
  ID_MAX_LENGTH,
  SESSION_ID_MAX_LENGTH,
  validateId,
} from '@engram/security-rules';
import { datedQuestion, parseAsOf } from './as-of.ts';
import { hybridSearch } from './hybrid-search.ts';
import { embedQuery } from './query-vector.ts';
import type { SearchQuery, SearchRepository } from './search.ts';
import type { RankingSettings } from './trust-ranker.ts';
import { vectorSearch, type RankedMemory } from './vector-search.ts';

export const TOP_K_DEFAULT = 10;
export const TOP_K_MAX = 100;
export const QUERY_MAX_LENGTH = 10_000;

export interface QueryDeps {
  readonly search: SearchRepository;
  readonly embedder: Embedder;
  readonly reader: VerifiedReader;
  /** Trust-weighted ranking; off when absent. */
  readonly ranking?: RankingSettings | undefined;
  /** The clock of temporal decay and of a query's dates without as_of (tests may pin it). */
  readonly now?: (() => Date) | undefined;
}

/**
 * Violations of a query text: required, at most QUERY_MAX_LENGTH characters, no NUL (the lexical
 * search hands the text to PostgreSQL, whose text type cannot hold one).
 */
export function validateQueryText(field: string, text: string): FieldViolation[] {
  if (text.trim() === '') return [{ field, description: 'is required', reason: 'REQUIRED' }];
  if ([...text].length > QUERY_MAX_LENGTH) {
    return [{ field, description: `at most ${QUERY_MAX_LENGTH} characters`, reason: 'TOO_LONG' }];
  }
  if (text.includes('\u0000')) {
    return [{ field, description: 'must not contain NUL characters', reason: 'CONTROL_CHARACTER' }];
  }
  return [];
}

function validate(req: QueryInput): { violations: FieldViolation[]; asOf: Date | undefined } {
  const v: FieldViolation[] = validateQueryText('query', req.query);
  if (req.top_k !== undefined && (req.top_k < 1 || req.top_k > TOP_K_MAX)) {
    v.push({ field: 'top_k', description: `must be between 1 and ${TOP_K_MAX}`, reason: 'INVALID_VALUE' });
  }
  if (req.min_score !== undefined && !(req.min_score >= -1 && req.min_score <= 1)) {
    v.push({ field: 'min_score', description: 'must be between -1 and 1', reason: 'INVALID_VALUE' });
  }
  req.memory_types.forEach((t, i) => {
    if (!isMemoryType(t))
      v.push({ field: `memory_types[${i}]`, description: 'unknown memory type', reason: 'INVALID_VALUE' });
  });
  req.scopes.forEach((s, i) => {
    if (!isScope(s)) v.push({ field: `scopes[${i}]`, description: 'unknown scope', reason: 'INVALID_VALUE' });
  });
  req.agent_ids.forEach((a, i) => v.push(...validateId(`agent_ids[${i}]`, a, ID_MAX_LENGTH)));
  if (req.agent_id !== '') v.push(...validateId('agent_id', req.agent_id, ID_MAX_LENGTH));
  if (req.namespace !== undefined && req.namespace !== '')
    v.push(...validateId('namespace', req.namespace, ID_MAX_LENGTH));
  if (req.session_id !== undefined)
    v.push(...validateId('session_id', req.session_id, SESSION_ID_MAX_LENGTH));
  if (req.entity_id !== undefined) v.push(...validateId('entity_id', req.entity_id, ENTITY_ID_MAX_LENGTH));
  const asOf = parseAsOf(req.as_of, v);
  return { violations: v, asOf };
}

export function namespaceOf(ns: string | undefined): string {
  return ns === undefined || ns === '' ? 'default' : ns;
}

interface Prepared {
  readonly q: SearchQuery;
  readonly topK: number;
  readonly ctx: ReadContext;
}

async function prepare(
  deps: QueryDeps,
  principal: Principal,
  req: QueryInput,
  route: string,
): Promise<Prepared | undefined> {
  const { violations, asOf } = validate(req);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  const agentId = actingAgent(principal, req.agent_id);
  const vector = await embedQuery(deps, req.query);
  if (!vector) return undefined;
  const dated = datedQuestion(req.query, asOf ?? deps.now?.() ?? new Date());
  const q: SearchQuery = {
    reader: readerOf(principal, agentId),
    namespace: namespaceOf(req.namespace),
    vector,
    text: dated.lexicalText,
    intervals: dated.intervals,
    memoryTypes: req.memory_types,
    scopes: req.scopes,
    authors: req.agent_ids,
    sessionId: req.session_id,
    entityId: req.entity_id,
    minScore: req.min_score,
  };
  const ctx: ReadContext = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId, route };
  return { q, topK: req.top_k ?? TOP_K_DEFAULT, ctx };
}

/**
 * Semantic query: embed, search visible candidates by cosine similarity, verify every row on read
 * (rows dropped by verification are replaced from the next candidates), and with trust-weighted
 * ranking re-rank a larger pool by relevance_score.
 */
export async function queryMemories(
  deps: QueryDeps,
  principal: Principal,
  req: QueryInput,
  route: string,
): Promise<RankedMemory[]> {
  const p = await prepare(deps, principal, req, route);
  return p ? vectorSearch(deps, p.q, p.topK, p.ctx) : [];
}

/**
 * Hybrid query: the vector channel and the lexical channel (Okapi BM25), fused by weighted
 * reciprocal rank fusion; min_score filters the vector channel only (a lexical hit has no
 * meaningful cosine floor). Dates in the query ("last May", read against as_of) raise the
 * candidates dated inside them (hybrid-search.ts).
 */
export async function hybridQueryMemories(
  deps: QueryDeps,
  principal: Principal,
  req: QueryInput,
): Promise<RankedMemory[]> {
  const p = await prepare(deps, principal, req, 'hybrid_query');
  return p ? hybridSearch(deps, p.q, p.topK, p.ctx) : [];
}
