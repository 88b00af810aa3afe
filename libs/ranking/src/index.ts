export {
  BM25_B,
  BM25_K1,
  BM25_REFERENCE_LENGTH,
  bm25Idf,
  bm25TermFactor,
  LEXICAL_ANALYZER_STOP_WORDS,
} from './bm25.ts';
export { rankingWeightsOf, relevanceScore } from './relevance.ts';
export type { RankingSignals, RankingWeights } from './relevance.ts';
export { maxFusedScore, reciprocalRankFusion, RRF_K } from './rrf.ts';
export type { RankedId } from './rrf.ts';
export { depthScore, trustScore } from './signals.ts';
export { DEFAULT_HALF_LIFE_DAYS, HALF_LIFE_DAYS, halfLifeDays, temporalDecay } from './temporal-decay.ts';
export { estimateTokens } from './token-estimate.ts';
