import { actingAgent, readerOf, type Principal, type Reader } from '@engram/auth';
import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import type { ReadContext } from '@engram/memories';
import { isMemoryType, type MemoryType } from '@engram/memory-model';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';
import { rankPlaybook, type PlaybookCandidate, type RankedEntry } from './playbook-ranking.ts';
import {
  namespaceOf,
  TOP_K_DEFAULT,
  TOP_K_MAX,
  validateQueryText,
  type QueryDeps,
} from './query-memories.ts';
import { embedQuery } from './query-vector.ts';

/** The memory types a playbook draws from unless the request names others. */
export const PLAYBOOK_TYPES = [
  'strategy',
  'reflection',
  'procedural',
  'control',
] as const satisfies readonly MemoryType[];

export interface PlaybookQuery {
  readonly reader: Reader;
  readonly namespace: string;
  readonly vector: number[];
  readonly memoryTypes: readonly string[];
  /** Keeps memories whose effectiveness is strictly above this value (in SQL, before the LIMIT). */
  readonly minEffectiveness?: number | undefined;
  readonly taskType?: string | undefined;
}

export interface PlaybookRepository {
  /** Visible live candidates in order of similarity, `limit` of them after skipping `offset`. */
  candidates(q: PlaybookQuery, limit: number, offset: number): Promise<PlaybookCandidate[]>;
}

export interface PlaybookDeps extends QueryDeps {
  readonly playbook: PlaybookRepository;
}

export interface PlaybookRequest {
  readonly query: string;
  readonly agentId: string;
  readonly namespace?: string | undefined;
  readonly memoryTypes: readonly string[];
  readonly minEffectiveness?: number | undefined;
  readonly topK?: number | undefined;
  readonly taskType?: string | undefined;
}

function validate(req: PlaybookRequest, byTask: boolean): void {
  const v: FieldViolation[] = validateQueryText('query', req.query);
  if (req.topK !== undefined && (req.topK < 1 || req.topK > TOP_K_MAX))
    v.push({ field: 'top_k', description: `must be between 1 and ${TOP_K_MAX}`, reason: 'INVALID_VALUE' });
  if (req.minEffectiveness !== undefined && !(req.minEffectiveness >= -1 && req.minEffectiveness <= 1))
    v.push({ field: 'min_effectiveness', description: 'must be between -1 and 1', reason: 'INVALID_VALUE' });
  req.memoryTypes.forEach((t, i) => {
    if (!isMemoryType(t))
      v.push({ field: `memory_types[${i}]`, description: 'unknown memory type', reason: 'INVALID_VALUE' });
  });
  if (req.agentId !== '') v.push(...validateId('agent_id', req.agentId, ID_MAX_LENGTH));
  if (req.namespace !== undefined && req.namespace !== '')
    v.push(...validateId('namespace', req.namespace, ID_MAX_LENGTH));
  if (byTask) v.push(...validateId('task_type', req.taskType ?? '', ID_MAX_LENGTH));
  if (v.length > 0) throw new InvalidArgumentError('request failed validation', v);
}

/**
 * Playbook (and, with a task type, the agent playbook): strategies, reflections, procedures and
 * control rules the reader may see, similar to the query, with effectiveness strictly above
 * min_effectiveness, ordered by rankPlaybook over a candidate pool from the vector index, every
 * entry verified on read (a dropped row is replaced from the next candidates).
 */
export async function playbook(
  deps: PlaybookDeps,
  principal: Principal,
  req: PlaybookRequest,
  route: 'playbook' | 'agent_playbook',
): Promise<RankedEntry[]> {
  const byTask = route === 'agent_playbook';
  validate(req, byTask);
  const agentId = actingAgent(principal, req.agentId);
  const vector = await embedQuery(deps, req.query);
  if (!vector) return []; // nothing stored yet
  const topK = req.topK ?? TOP_K_DEFAULT;
  const q: PlaybookQuery = {
    reader: readerOf(principal, agentId),
    namespace: namespaceOf(req.namespace),
    vector,
    memoryTypes: req.memoryTypes.length > 0 ? req.memoryTypes : PLAYBOOK_TYPES,
    minEffectiveness: req.minEffectiveness,
    taskType: byTask ? req.taskType : undefined,
  };
  const ctx: ReadContext = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId, route };
  const pool = Math.max(topK * 5, 50);
  const kept: PlaybookCandidate[] = [];
  for (let offset = 0; kept.length < pool; offset += pool) {
    const batch = await deps.playbook.candidates(q, pool, offset);
    kept.push(...((await deps.reader.screen(batch, ctx)) as PlaybookCandidate[]));
    if (batch.length < pool) break;
  }
  return rankPlaybook(kept, byTask).slice(0, topK);
}
