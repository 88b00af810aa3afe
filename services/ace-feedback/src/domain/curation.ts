import { actingAgent, readerOf, type Principal } from '@engram/auth';
import type { StoredMemory } from '@engram/memories';
import { ID_MAX_LENGTH } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import type { MemoryLookup, ReadScreen } from './ports.ts';

export const CURATE_TOP_K_DEFAULT = 10;
export const CURATE_TOP_K_MAX = 100;
/** Memories at least this similar are listed as consolidation candidates by curation. */
export const CANDIDATE_SIMILARITY = 0.9;
/** Nearest neighbours looked up per memory (through the vector index). */
export const NEIGHBOURS_PER_MEMORY = 5;
/** Curation looks for candidates among the newest memories of the namespace (one index lookup each). */
export const CURATE_MAX_MEMORIES = 500;

export type CuratedMemory = StoredMemory & { effectiveness_score: number; integrity_status?: string };

export interface Candidate {
  readonly a: CuratedMemory;
  readonly b: CuratedMemory;
  readonly similarity: number;
}

export interface Curation {
  readonly promoted: CuratedMemory[];
  readonly flagged: CuratedMemory[];
  readonly candidates: Candidate[];
}

export interface CurateRequest {
  readonly namespace: string;
  readonly agentId: string;
  readonly topK?: number | undefined;
  readonly threshold?: number | undefined;
}

export function namespaceOf(ns: string | undefined): string {
  return ns === undefined || ns === '' ? 'default' : ns;
}

/**
 * Curation over what the acting agent may read in a namespace (read-only): promoted = voted memories
 * whose effectiveness is strictly above min_effectiveness_threshold (default 0), best first; flagged =
 * voted memories strictly below it, worst first; consolidation_candidates = pairs at least
 * CANDIDATE_SIMILARITY similar. Every memory shown is verified on read.
 */
export async function curate(
  deps: { memories: MemoryLookup; screen: ReadScreen },
  principal: Principal,
  req: CurateRequest,
): Promise<Curation> {
  const checks = new FieldChecks()
    .id('namespace', req.namespace, ID_MAX_LENGTH)
    .id('agent_id', req.agentId, ID_MAX_LENGTH);
  if (req.topK !== undefined && (req.topK < 1 || req.topK > CURATE_TOP_K_MAX))
    checks.add('top_k', `must be between 1 and ${CURATE_TOP_K_MAX}`);
  if (req.threshold !== undefined && !(req.threshold >= -1 && req.threshold <= 1))
    checks.add('min_effectiveness_threshold', 'must be between -1 and 1');
  checks.throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const reader = readerOf(principal, agentId);
  const namespace = namespaceOf(req.namespace);
  const topK = req.topK ?? CURATE_TOP_K_DEFAULT;
  const threshold = req.threshold ?? 0;
  const ctx = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId, route: 'curate' };
  const verified = async (rows: (StoredMemory & { effectiveness: number })[]): Promise<CuratedMemory[]> => {
    const score = new Map(rows.map((r) => [r.id, r.effectiveness]));
    return (await deps.screen.screen(rows, ctx)).map((m) => ({
      ...m,
      effectiveness_score: score.get(m.id) ?? 0,
    }));
  };
  const promoted = await verified(
    await deps.memories.byEffectiveness(reader, namespace, threshold, 'above', topK),
  );
  const flagged = await verified(
    await deps.memories.byEffectiveness(reader, namespace, threshold, 'below', topK),
  );

  const pairs = (
    await deps.memories.similarPairs(reader, namespace, CANDIDATE_SIMILARITY, {
      neighbours: NEIGHBOURS_PER_MEMORY,
      maxMemories: CURATE_MAX_MEMORIES,
    })
  ).slice(0, topK);
  const ids = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const eff = await deps.memories.effectiveness(principal.projectId, ids);
  const rows = await deps.screen.screen(await deps.memories.byIds(reader, ids), ctx);
  const byId = new Map(rows.map((m) => [m.id, { ...m, effectiveness_score: eff.get(m.id)?.score ?? 0 }]));
  const candidates: Candidate[] = [];
  for (const p of pairs) {
    const a = byId.get(p.a);
    const b = byId.get(p.b);
    if (a && b) candidates.push({ a, b, similarity: p.similarity });
  }
  return { promoted, flagged, candidates };
}
