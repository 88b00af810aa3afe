import type { ReadContext, VerifiedReader } from '@engram/memories';
import type { ScoredMemory, SearchQuery, SearchRepository } from './search.ts';
import { rankByTrust, type RankingSettings } from './trust-ranker.ts';

export type RankedMemory = ScoredMemory & { relevance_score?: number; integrity_status?: string };

export interface SearchDeps {
  readonly search: SearchRepository;
  readonly reader: VerifiedReader;
  readonly ranking?: RankingSettings | undefined;
  readonly now?: (() => Date) | undefined;
}

/** Candidates re-ranked by trust weighting: five times top_k, at least 50, at most 500. */
export function candidatePool(topK: number): number {
  return Math.min(500, Math.max(50, topK * 5));
}

/**
 * `want` verified rows in similarity order: pages through the vector search and screens each page
 * on read, so rows dropped by verification are replaced by the next candidates.
 */
export async function verifiedNearest(
  deps: SearchDeps,
  q: SearchQuery,
  want: number,
  ctx: ReadContext,
): Promise<RankedMemory[]> {
  const out: RankedMemory[] = [];
  const page = Math.max(want * 2, 20);
  for (let offset = 0; out.length < want; offset += page) {
    const batch = await deps.search.search(q, page, offset);
    out.push(...((await deps.reader.screen(batch, ctx)) as RankedMemory[]));
    if (batch.length < page) break;
  }
  return out.slice(0, want);
}

/** Vector search, verified on read; with trust-weighted ranking a larger pool re-ranked by relevance_score. */
export async function vectorSearch(
  deps: SearchDeps,
  q: SearchQuery,
  topK: number,
  ctx: ReadContext,
): Promise<RankedMemory[]> {
  if (!deps.ranking?.enabled) return verifiedNearest(deps, q, topK, ctx);
  const pool = await verifiedNearest(deps, q, candidatePool(topK), ctx);
  const now = deps.now?.() ?? new Date();
  const ranked = await rankByTrust(deps.search, deps.ranking.weights, pool, (m) => m.score, now);
  return ranked.slice(0, topK);
}
