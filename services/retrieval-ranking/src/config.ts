import type { EngramConfig } from '@engram/config';
import { rankingWeightsOf } from '@engram/ranking';
import type { RankingSettings } from './domain/trust-ranker.ts';

/** The settings retrieval-ranking reads: trust-weighted ranking (ENABLE_TRUST_WEIGHTED_RANKING, RANKING_W_*). */
export interface RetrievalConfig {
  readonly ranking: RankingSettings;
}

export function retrievalConfig(config: EngramConfig): RetrievalConfig {
  return {
    ranking: {
      enabled: config.enableTrustWeightedRanking,
      weights: rankingWeightsOf(config),
    },
  };
}
