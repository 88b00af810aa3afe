import type { EngramConfig } from '@engram/config';
import type { HnswChoice } from './storage/embedding-space.ts';

/**
 * The settings memory-store reads itself: the HNSW settings it pins with the embedding space on first
 * start, whether a system key may be generated (no SERVICE_API_KEY), INTEGRITY_REQUIRE_SIGNED,
 * whose legacy rows it counts at start, and how many lone writes share a statement. Integrity
 * keys, the embedder and the database come from the process.
 */
export interface MemoryStoreConfig {
  readonly hnsw: HnswChoice;
  readonly bootstrapKeyConfigured: boolean;
  readonly integrityRequireSigned: boolean;
  /** DATABASE_WRITE_GROUP_MAX: the most lone writes grouped into one statement. */
  readonly writeGroupMax: number;
}

export function memoryStoreConfig(config: EngramConfig): MemoryStoreConfig {
  return {
    hnsw: { m: config.hnswM, efConstruction: config.hnswEfConstruction, efSearch: config.hnswEfSearch },
    bootstrapKeyConfigured: config.serviceApiKey !== undefined,
    integrityRequireSigned: config.integrityRequireSigned,
    writeGroupMax: config.databaseWriteGroupMax,
  };
}
