import { loadEngramConfig } from '@engram/config';
import { createEmbedder } from '@engram/embeddings';
import { configuredPeers, createPlatform, embeddingSettings, runMain, serveServices } from '@engram/platform';
import { RETRIEVAL_SERVICE_NAMES, retrievalServices } from './server.ts';

runMain('retrieval-ranking', async () => {
  const config = loadEngramConfig(process.env);
  const platform = await createPlatform({ config, service: 'retrieval-ranking', migrations: [] });
  const embedder = await createEmbedder(embeddingSettings(config), platform.logger);
  await serveServices(
    platform,
    retrievalServices(platform, embedder, configuredPeers(config)),
    RETRIEVAL_SERVICE_NAMES,
  );
  platform.runtime.installSignalHandlers();
});
