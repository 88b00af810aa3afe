import type { EngramConfig } from '@engram/config';
import type { RankingSettings } from './domain/trust-ranker.ts';

/** The settings retrieval-ranking reads: trust-weighted ranking (ENABLE_TRUST_WEIGHTED_RANKING, RANKING_W_*). */
export interface RetrievalConfig {
  readonly ranking: RankingSettings;
}

export function retrievalConfig(config: EngramConfig): RetrievalConfig {
  return {
    ranking: {
      enabled: config.enableTrustWeightedRanking,
      weights: {
        similarity: config.rankingWSimilarity,
        trust: config.rankingWTrust,
        effectiveness: config.rankingWEffectiveness,
        recency: config.rankingWRecency,
        provenance: config.rankingWProvenance,
      },
    },
  };
}
