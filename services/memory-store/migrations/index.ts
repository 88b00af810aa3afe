import type { MigrationSet } from '@engram/db';
import { memories } from './20261121000100-memories.ts';
import { projectsAndKeys } from './20261121000000-projects-and-keys.ts';
import { provenance } from './20261121000200-provenance.ts';
import { hnswIndexParamsMigration } from './20261122000000-hnsw-index-params.ts';
import { vectorDistanceCost } from './20261122000100-vector-distance-cost.ts';
import { embeddingInline } from './20261122000200-embedding-inline.ts';
import { keyAgents } from './20261124000000-key-agents.ts';
import { hnswSettings } from './20261126000000-hnsw-settings.ts';
import { bm25Postings } from './20261126000100-bm25-postings.ts';
import { dropUnusedTsv } from './20261203000000-drop-unused-tsv.ts';

/** The tables memory-store owns. */
export const memoryStoreMigrations: MigrationSet = {
  owner: 'memory_store',
  migrations: [
    projectsAndKeys,
    memories,
    provenance,
    hnswIndexParamsMigration,
    vectorDistanceCost,
    embeddingInline,
    keyAgents,
    hnswSettings,
    bm25Postings,
    dropUnusedTsv,
  ],
};
