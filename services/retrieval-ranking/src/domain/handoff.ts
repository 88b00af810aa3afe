import { handoffAgents, type Principal } from '@engram/auth';
import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import type { HandoffInput } from './requests.ts';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';
import { hybridSearch } from './hybrid-search.ts';
import {
  namespaceOf,
  TOP_K_DEFAULT,
  TOP_K_MAX,
  validateQueryText,
  type QueryDeps,
} from './query-memories.ts';
import { embedQuery } from './query-vector.ts';
import type { RankedMemory } from './vector-search.ts';

function validate(req: HandoffInput): FieldViolation[] {
  const v: FieldViolation[] = [];
  for (const field of ['source_agent_id', 'target_agent_id'] as const) {
    if (req[field] === '') v.push({ field, description: 'is required', reason: 'REQUIRED' });
    else v.push(...validateId(field, req[field], ID_MAX_LENGTH));
  }
  v.push(...validateQueryText('task_context', req.task_context));
  if (req.max_memories !== undefined && (req.max_memories < 1 || req.max_memories > TOP_K_MAX)) {
    v.push({
      field: 'max_memories',
      description: `must be between 1 and ${TOP_K_MAX}`,
      reason: 'INVALID_VALUE',
    });
  }
  if (req.namespace !== undefined && req.namespace !== '')
    v.push(...validateId('namespace', req.namespace, ID_MAX_LENGTH));
  return v;
}

/**
 * Handoff: the source agent's memories most relevant to the task context (hybrid ranking), limited
 * to what the TARGET agent may read (visibility computed for the target inside the SQL: global,
 * authored by the target, or shared with it), verified on read. The key must be able to act as the
 * source or the target (handoffAgents; else AGENT_MISMATCH); the target's visibility never widens
 * to the caller's, even for a privileged key.
 */
export async function handoffMemories(
  deps: QueryDeps,
  principal: Principal,
  req: HandoffInput,
): Promise<RankedMemory[]> {
  const violations = validate(req);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  // The key must be able to act as the source or the target (403 AGENT_MISMATCH otherwise).
  handoffAgents(principal, req.source_agent_id, req.target_agent_id);
  const bound = principal.boundAgentId;
  const vector = await embedQuery(deps, req.task_context);
  if (!vector) return [];
  return hybridSearch(
    deps,
    {
      reader: { projectId: principal.projectId, agentId: req.target_agent_id, seesAll: false },
      namespace: namespaceOf(req.namespace),
      vector,
      text: req.task_context,
      memoryTypes: [],
      scopes: [],
      authors: [req.source_agent_id],
    },
    req.max_memories ?? TOP_K_DEFAULT,
    {
      projectId: principal.projectId,
      agentId: bound ?? req.source_agent_id,
      apiKeyId: principal.keyId,
      route: 'handoff',
    },
  );
}
