import { actingAgent, readerOf, type Principal } from '@engram/auth';
import type { StoredMemory } from '@engram/memory-model';
import { ID_MAX_LENGTH } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import type { MemoryLookup, ReadScreen, SimilarPair } from './ports.ts';

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
 * CANDIDATE_SIMILARITY similar. Every memory shown is verified on read, and each list still fills
 * top_k when verification drops rows: dropped rows and pairs are replaced by the next ones.
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
  const screen = (rows: readonly StoredMemory[]) => deps.screen.screen(rows, ctx);
  const list = (side: 'above' | 'below') =>
    verifiedList(
      (limit, offset) => deps.memories.byEffectiveness(reader, namespace, threshold, side, limit, offset),
      screen,
      topK,
    );
  const promoted = await list('above');
  const flagged = await list('below');

  const pairs = await deps.memories.similarPairs(reader, namespace, CANDIDATE_SIMILARITY, {
    neighbours: NEIGHBOURS_PER_MEMORY,
    maxMemories: CURATE_MAX_MEMORIES,
  });
  const candidates = await verifiedPairs(
    pairs,
    async (ids) => {
      const [eff, rows] = await Promise.all([
        deps.memories.effectiveness(principal.projectId, ids),
        deps.memories.byIds(reader, ids),
      ]);
      return (await screen(rows)).map((m) => ({ ...m, effectiveness_score: eff.get(m.id)?.score ?? 0 }));
    },
    topK,
  );
  return { promoted, flagged, candidates };
}

/**
 * `want` verified rows of a list in its order: pages through `fetch` and screens each page on read,
 * so rows dropped by verification are replaced by the next ones (as the query path does).
 */
async function verifiedList(
  fetch: (limit: number, offset: number) => Promise<(StoredMemory & { effectiveness: number })[]>,
  screen: (rows: readonly StoredMemory[]) => Promise<(StoredMemory & { integrity_status?: string })[]>,
  want: number,
): Promise<CuratedMemory[]> {
  const out: CuratedMemory[] = [];
  const page = Math.max(want * 2, 20);
  for (let offset = 0; out.length < want; offset += page) {
    const batch = await fetch(page, offset);
    const score = new Map(batch.map((r) => [r.id, r.effectiveness]));
    for (const m of await screen(batch)) {
      // A vote between two pages can move a row across the page boundary: never list it twice.
      if (!out.some((o) => o.id === m.id)) out.push({ ...m, effectiveness_score: score.get(m.id) ?? 0 });
    }
    if (batch.length < page) break;
  }
  return out.slice(0, want);
}

/**
 * The first `want` pairs (in similarity order) whose two memories both pass verification on read: the
 * memories of the next pairs are loaded and screened a few pairs at a time (each memory once), so a
 * pair lost to a dropped memory is replaced by the next pair.
 */
async function verifiedPairs(
  pairs: readonly SimilarPair[],
  load: (ids: string[]) => Promise<CuratedMemory[]>,
  want: number,
): Promise<Candidate[]> {
  const byId = new Map<string, CuratedMemory>();
  const loaded = new Set<string>();
  const out: Candidate[] = [];
  let next = 0;
  while (out.length < want && next < pairs.length) {
    const chunk = pairs.slice(next, next + (want - out.length));
    next += chunk.length;
    const ids = [...new Set(chunk.flatMap((p) => [p.a, p.b]))].filter((id) => !loaded.has(id));
    for (const id of ids) loaded.add(id);
    for (const m of await load(ids)) byId.set(m.id, m);
    for (const p of chunk) {
      const a = byId.get(p.a);
      const b = byId.get(p.b);
      if (a && b) out.push({ a, b, similarity: p.similarity });
    }
  }
  return out;
}
