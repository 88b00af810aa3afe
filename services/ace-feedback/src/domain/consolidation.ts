import { actingAgent, isPrivileged, readerOf, type Caller, type Principal } from '@engram/auth';
import { InvalidArgumentError, UnimplementedError } from '@engram/errors';
import { ID_MAX_LENGTH } from '@engram/security-rules';
import { namespaceOf, NEIGHBOURS_PER_MEMORY } from './curation.ts';
import { FieldChecks } from './field-checks.ts';
import type { ConsolidationLog, MemoryLookup, ReadScreen, WritePipeline } from './ports.ts';

export const CONSOLIDATE_SIMILARITY_DEFAULT = 0.92;
/** Consolidation examines the newest memories of the namespace, one index lookup each (~5 ms). */
export const CONSOLIDATE_MAX_MEMORIES = 5000;

export interface Merge {
  readonly keptId: string;
  readonly deprecatedId: string;
  readonly similarity: number;
}

export interface ConsolidateRequest {
  readonly namespace: string;
  readonly agentId: string;
  readonly dryRun: boolean;
  readonly similarityThreshold?: number | undefined;
  readonly useLlm: boolean;
}

interface Facts {
  readonly agentId: string;
  readonly createdAt: Date;
  readonly effectiveness: number;
}

/**
 * Which memory of a pair survives: the more effective one; on a tie the older one (it has the
 * longer record), then the smaller id, so the plan is deterministic.
 */
function keeps(a: string, fa: Facts, b: string, fb: Facts): boolean {
  if (fa.effectiveness !== fb.effectiveness) return fa.effectiveness > fb.effectiveness;
  if (fa.createdAt.getTime() !== fb.createdAt.getTime()) return fa.createdAt < fb.createdAt;
  return a < b;
}

/**
 * Consolidation of embedding-similar memories of a namespace. Pairs at least similarity_threshold
 * similar (default 0.92) come from each memory's nearest neighbours in the vector index; greedily,
 * most similar first, the lower-effectiveness memory of a pair is deprecated with superseded_by = the
 * kept one, and no memory is both kept and deprecated in one plan. Only memories the caller may
 * modify (its own, or any with a privileged key) are deprecated. Only memories whose signature
 * verifies take part, whatever INTEGRITY_READ_MODE says; the others are listed in unverifiedIds (and
 * recorded as INTEGRITY_FAILED where a read would fail them). dry_run returns the plan and changes
 * nothing; otherwise all deprecations commit in one transaction (IngestInternal kind consolidation)
 * and each merge is recorded as a memories_consolidated event. use_llm answers 501.
 */
export async function consolidate(
  deps: {
    memories: MemoryLookup;
    pipeline: WritePipeline;
    log: ConsolidationLog;
    screen: ReadScreen;
  },
  principal: Principal,
  caller: Caller,
  req: ConsolidateRequest,
): Promise<{ dryRun: boolean; merges: Merge[]; unverifiedIds: string[] }> {
  if (req.useLlm) throw new UnimplementedError('consolidation with use_llm is not implemented');
  const checks = new FieldChecks()
    .id('namespace', req.namespace, ID_MAX_LENGTH)
    .id('agent_id', req.agentId, ID_MAX_LENGTH);
  const t = req.similarityThreshold;
  if (t !== undefined && !(t > 0 && t <= 1))
    checks.add('similarity_threshold', 'must be above 0 and at most 1');
  checks.throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const reader = readerOf(principal, agentId);
  const namespace = namespaceOf(req.namespace);
  const pairs = await deps.memories.similarPairs(reader, namespace, t ?? CONSOLIDATE_SIMILARITY_DEFAULT, {
    neighbours: NEIGHBOURS_PER_MEMORY,
    maxMemories: CONSOLIDATE_MAX_MEMORIES,
  });
  const ids = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const [rows, eff] = await Promise.all([
    deps.memories.byIds(reader, ids),
    deps.memories.effectiveness(principal.projectId, ids),
  ]);
  const ctx = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId, route: 'consolidate' };
  const { trusted, untrusted } = await deps.screen.trusted(rows, ctx);
  // Only verified memories take part: a pair with an unverified one is skipped, so such a row is
  // never kept (deprecating a signed memory in favour of content nobody signed) and never deprecated
  // (its content, and so its similarity, is not what was written; it stays as evidence).
  const facts = new Map<string, Facts>(
    trusted.map((m) => [
      m.id,
      { agentId: m.agent_id, createdAt: m.created_at, effectiveness: eff.get(m.id)?.score ?? 0 },
    ]),
  );
  const unverifiedIds = untrusted.map((u) => u.row.id).sort();
  const mayModify = (f: Facts) => isPrivileged(principal) || f.agentId === agentId;
  const kept = new Set<string>();
  const gone = new Set<string>();
  const merges: Merge[] = [];
  for (const p of pairs) {
    const fa = facts.get(p.a);
    const fb = facts.get(p.b);
    if (!fa || !fb || gone.has(p.a) || gone.has(p.b)) continue;
    const [keep, drop, fDrop] = keeps(p.a, fa, p.b, fb) ? [p.a, p.b, fb] : [p.b, p.a, fa];
    if (kept.has(drop) || !mayModify(fDrop)) continue;
    kept.add(keep);
    gone.add(drop);
    merges.push({ keptId: keep, deprecatedId: drop, similarity: p.similarity });
  }
  if (req.dryRun || merges.length === 0) return { dryRun: req.dryRun, merges, unverifiedIds };
  const deprecations = merges.map((m) => ({
    memory_id: m.deprecatedId,
    superseded_by: m.keptId,
    reason: `consolidated into ${m.keptId} (similarity ${m.similarity.toFixed(3)})`,
    agent_id: agentId,
  }));
  // Every merge in one transaction, acting as the named agent.
  const res = await deps.pipeline.ingest(
    { items: [], kind: 'consolidation', depth: 0, atomic: true, deprecations },
    caller,
  );
  if (!res.applied) throw new InvalidArgumentError('the consolidation plan was refused; nothing changed');
  await deps.log.record(
    { projectId: principal.projectId, agentId, apiKeyId: principal.keyId },
    namespace,
    merges,
  );
  return { dryRun: false, merges, unverifiedIds };
}
