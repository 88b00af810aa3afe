import { actingAgent, readerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import type { ContextInput } from './requests.ts';
import { estimateTokens } from '@engram/ranking';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';
import { datedQuestion, parseAsOf } from './as-of.ts';
import { hybridSearch } from './hybrid-search.ts';
import { namespaceOf, TOP_K_MAX, validateQueryText, type QueryDeps } from './query-memories.ts';
import { embedQuery } from './query-vector.ts';
import type { RankedMemory } from './vector-search.ts';

/** The largest token budget a bundle accepts (a million tokens: beyond any model window today). */
export const TOKEN_BUDGET_MAX = 1_000_000;

export interface ContextBundle {
  readonly agentId: string;
  readonly items: (RankedMemory & { tokens: number })[];
  readonly tokensUsed: number;
  /**
   * Every item carries a signature that verifies (false when verification is off, or an item is
   * unsigned, whatever its hash column holds, or flagged).
   */
  readonly allVerified: boolean;
}

function validate(req: ContextInput): { violations: FieldViolation[]; asOf: Date | undefined } {
  const v = validateQueryText('query', req.query);
  if (req.agent_id !== '') v.push(...validateId('agent_id', req.agent_id, ID_MAX_LENGTH));
  if (!(req.token_budget >= 1 && req.token_budget <= TOKEN_BUDGET_MAX)) {
    v.push({
      field: 'token_budget',
      description: `must be between 1 and ${TOKEN_BUDGET_MAX}`,
      reason: req.token_budget === 0 ? 'REQUIRED' : 'INVALID_VALUE',
    });
  }
  if (req.namespace !== undefined && req.namespace !== '')
    v.push(...validateId('namespace', req.namespace, ID_MAX_LENGTH));
  const asOf = parseAsOf(req.as_of, v);
  return { violations: v, asOf };
}

/**
 * Context bundle: the reader's best memories for the query (hybrid ranking, up to 100 candidates,
 * verified on read; dates in the query read against as_of), packed in rank order into the token budget. A memory that does not fit is
 * skipped and smaller later ones may still fill the rest. Tokens are counted with estimateTokens
 * (@engram/ranking) over the content, the same count that fills the budget and is reported.
 */
export async function loadContext(
  deps: QueryDeps,
  principal: Principal,
  req: ContextInput,
): Promise<ContextBundle> {
  const { violations, asOf } = validate(req);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  const agentId = actingAgent(principal, req.agent_id);
  const vector = await embedQuery(deps, req.query);
  const dated = datedQuestion(req.query, asOf ?? deps.now?.() ?? new Date());
  const candidates = !vector
    ? []
    : await hybridSearch(
        deps,
        {
          reader: readerOf(principal, agentId),
          namespace: namespaceOf(req.namespace),
          vector,
          text: dated.lexicalText,
          intervals: dated.intervals,
          memoryTypes: [],
          scopes: [],
          authors: [],
        },
        TOP_K_MAX,
        { projectId: principal.projectId, agentId, apiKeyId: principal.keyId, route: 'context_load' },
      );
  const items: (RankedMemory & { tokens: number })[] = [];
  let used = 0;
  for (const m of candidates) {
    const tokens = estimateTokens(m.content);
    if (used + tokens > req.token_budget) continue;
    used += tokens;
    items.push({ ...m, tokens });
  }
  return {
    agentId,
    items,
    tokensUsed: used,
    // Each item's signature checked again here: an empty or missing hash is unsigned, not verified.
    allVerified: deps.reader.mode !== 'off' && items.every((m) => deps.reader.verifies(m)),
  };
}
