import { join } from 'node:path';
import type { EngramConfig } from '@engram/config';

/** The EMBEDDING_* settings in the shape createEmbedder takes. */
export function embeddingSettings(config: EngramConfig) {
  return {
    provider: config.embeddingProvider,
    model: config.embeddingModel,
    modelPath: config.embeddingModelPath,
    /** Where a local model is looked for when EMBEDDING_MODEL_PATH is unset. */
    cacheDir: join(config.dataDir, 'models'),
    dimensions: config.embeddingDimensions,
    baseUrl: config.embeddingBaseUrl,
    apiKey: config.embeddingApiKey,
    encodingFormat: config.embeddingEncodingFormat,
  };
}
