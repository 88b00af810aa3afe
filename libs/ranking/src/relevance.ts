/** RANKING_W_* (docs/architecture.md, The read path); they sum to 1.0 (checked by the config lib at startup). */
export interface RankingWeights {
  readonly similarity: number;
  readonly trust: number;
  readonly effectiveness: number;
  readonly recency: number;
  readonly provenance: number;
}

/** RANKING_W_* as loaded, in the shape the ranker (and GET /security/config) reads them. */
export function rankingWeightsOf(config: {
  readonly rankingWSimilarity: number;
  readonly rankingWTrust: number;
  readonly rankingWEffectiveness: number;
  readonly rankingWRecency: number;
  readonly rankingWProvenance: number;
}): RankingWeights {
  return {
    similarity: config.rankingWSimilarity,
    trust: config.rankingWTrust,
    effectiveness: config.rankingWEffectiveness,
    recency: config.rankingWRecency,
    provenance: config.rankingWProvenance,
  };
}

/** The five signals of one memory, each in [0, 1] except similarity (cosine, in [-1, 1]). */
export interface RankingSignals {
  readonly similarity: number;
  readonly trust: number;
  readonly effectiveness: number;
  readonly recency: number;
  readonly provenance: number;
}

/** relevance_score = w_sim*similarity + w_trust*trust + w_votes*effectiveness + w_recency*decay + w_prov*depth. */
export function relevanceScore(w: RankingWeights, s: RankingSignals): number {
  return (
    w.similarity * s.similarity +
    w.trust * s.trust +
    w.effectiveness * s.effectiveness +
    w.recency * s.recency +
    w.provenance * s.provenance
  );
}
