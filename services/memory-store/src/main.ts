import { loadEngramConfig } from '@engram/config';
import { createEmbedder } from '@engram/embeddings';
import { createPlatform, embeddingSettings, hnswChoice, runMain, serveServices } from '@engram/platform';
import { memoryStoreMigrations } from '../migrations/index.ts';
import { bootstrapKeys } from './bootstrap.ts';
import { MEMORY_STORE_SERVICE_NAMES, memoryStoreServices } from './server.ts';
import { pinEmbeddingSpace } from './storage/embedding-space.ts';

runMain('memory-store', async () => {
  const config = loadEngramConfig(process.env);
  const platform = await createPlatform({
    config,
    service: 'memory-store',
    migrations: [memoryStoreMigrations],
  });
  const embedder = await createEmbedder(embeddingSettings(config), platform.logger);
  await pinEmbeddingSpace(platform.db, embedder.space, hnswChoice(config), platform.logger);
  const { services, keys } = memoryStoreServices({ platform, embedder });
  const generated = await bootstrapKeys(platform, keys);
  if (generated) process.stdout.write(`engram: generated system API key (shown once): ${generated}\n`);
  await serveServices(platform, services, MEMORY_STORE_SERVICE_NAMES);
  platform.runtime.installSignalHandlers();
});
