export { composeRetrievalRanking, RETRIEVAL_SERVICE_NAMES } from './compose.ts';
export { retrievalConfig } from './config.ts';
export type { RetrievalConfig } from './config.ts';
export { HYBRID_FUSION } from './domain/hybrid-search.ts';
export { readTemporal } from './domain/temporal-expressions.ts';
export type { TemporalReading } from './domain/temporal-expressions.ts';
export { fuseInTime, inIntervals, MEMORY_DATE_KEYS, TEMPORAL_FUSION } from './domain/temporal-ranking.ts';
export type { TemporalFusionSettings } from './domain/temporal-ranking.ts';
