import type { EngramConfig } from '@engram/config';
import { rankingWeightsOf } from '@engram/ranking';
import type { RankingSettings } from './domain/trust-ranker.ts';

/**
 * The settings retrieval-ranking reads: trust-weighted ranking (ENABLE_TRUST_WEIGHTED_RANKING,
 * RANKING_W_*) and how deep the lexical channel reads (LEXICAL_EXACT).
 */
export interface RetrievalConfig {
  readonly ranking: RankingSettings;
  /** Rounds a lexical query may read (LEXICAL_EXACT): one bounded round, or until exact (Infinity). */
  readonly lexicalRounds: number;
}

export function retrievalConfig(config: EngramConfig): RetrievalConfig {
  return {
    lexicalRounds: config.lexicalExact ? Infinity : 1,
    ranking: {
      enabled: config.enableTrustWeightedRanking,
      weights: rankingWeightsOf(config),
    },
  };
}
