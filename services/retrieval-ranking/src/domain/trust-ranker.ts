import { effectiveness01 } from '@engram/memory-model';
import { depthScore, relevanceScore, temporalDecay, trustScore, type RankingWeights } from '@engram/ranking';
import type { ScoredMemory, SearchRepository } from './search.ts';

/** ENABLE_TRUST_WEIGHTED_RANKING and RANKING_W_*. */
export interface RankingSettings {
  readonly enabled: boolean;
  readonly weights: RankingWeights;
}

export type Ranked<T extends ScoredMemory> = T & { relevance_score?: number };

/**
 * Trust-weighted re-ranking (docs/architecture.md, The read path) of a verified candidate pool: relevance_score =
 * w_sim*similarity + w_trust*trust + w_votes*effectiveness01 + w_recency*decay + w_prov*depth_score.
 * `similarityOf` gives the similarity term (cosine for vector queries, the normalised fused rank for
 * hybrid ones). Returns the pool sorted by relevance_score; score stays cosine.
 */
export async function rankByTrust<T extends ScoredMemory>(
  search: SearchRepository,
  weights: RankingWeights,
  pool: readonly T[],
  similarityOf: (m: T) => number,
  now: Date,
): Promise<Ranked<T>[]> {
  if (pool.length === 0) return [];
  const projectId = pool[0]!.project_id;
  const signals = await search.signals(
    projectId,
    pool.map((m) => m.id),
  );
  const ranked = pool.map((m) => {
    const s = signals.get(m.id);
    const relevance_score = relevanceScore(weights, {
      similarity: similarityOf(m),
      trust: trustScore(m.trust_level),
      effectiveness: effectiveness01(s),
      recency: temporalDecay(m.memory_type, now.getTime() - m.created_at.getTime()),
      provenance: depthScore(s?.depth),
    });
    return { ...m, relevance_score };
  });
  return ranked.sort((a, b) => b.relevance_score - a.relevance_score);
}
