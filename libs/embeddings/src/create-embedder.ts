import type { Logger } from '@engram/logger';
import type { Embedder } from './embedder.ts';
import { EmbeddingError } from './embedding-error.ts';
import { HashEmbedder } from './hash-embedder.ts';
import { LocalEmbedder, LocalModelUnavailableError } from './local-embedder.ts';
import { OpenAiEmbedder } from './openai-embedder.ts';

/** The EMBEDDING_* settings, as compiled by the config lib. */
export interface EmbedderSettings {
  readonly provider: 'local' | 'openai' | 'hash';
  readonly model: string;
  readonly modelPath?: string | undefined;
  /** local: where models are looked up by name without modelPath (<data dir>/models). */
  readonly cacheDir?: string | undefined;
  readonly dimensions: number;
  readonly baseUrl?: string | undefined;
  readonly apiKey?: string | undefined;
  /** openai: per request timeout, default 10 s. */
  readonly timeoutMs?: number | undefined;
  /** openai: encoding_format asked for, default base64. */
  readonly encodingFormat?: 'base64' | 'float' | undefined;
}

export const LOCAL_FALLBACK_WARNING =
  'EMBEDDING_PROVIDER=local: the local model could not be loaded; falling back to the hash embedder';

function build(settings: EmbedderSettings, logger: Logger): Embedder {
  switch (settings.provider) {
    case 'hash':
      return new HashEmbedder({ dimensions: settings.dimensions });
    case 'openai':
      if (!settings.baseUrl) {
        throw new EmbeddingError(
          'EMBEDDING_PROVIDER=openai needs EMBEDDING_BASE_URL (an OpenAI-compatible base URL such as ' +
            'https://api.openai.com/v1)',
          'CONFIGURATION',
        );
      }
      return new OpenAiEmbedder({
        baseUrl: settings.baseUrl,
        apiKey: settings.apiKey,
        model: settings.model,
        dimensions: settings.dimensions,
        timeoutMs: settings.timeoutMs,
        encodingFormat: settings.encodingFormat,
        logger,
      });
    case 'local':
      throw new EmbeddingError('the local provider loads asynchronously', 'CONFIGURATION');
    default: {
      const provider: never = settings.provider;
      throw new EmbeddingError(`unknown embedding provider ${String(provider)}`, 'CONFIGURATION');
    }
  }
}

/**
 * local: the ONNX model through transformers.js. docs/architecture.md (Embeddings) lets the service start on the
 * hash embedder when the model cannot be obtained, loudly; a store pinned to the local space then
 * refuses to start (the pin names both spaces), and moving a hash store to a local model needs
 * `engram reembed`.
 */
async function loadLocal(settings: EmbedderSettings, logger: Logger): Promise<Embedder> {
  try {
    return await LocalEmbedder.load({
      model: settings.model,
      modelPath: settings.modelPath,
      cacheDir: settings.cacheDir,
      dimensions: settings.dimensions,
    });
  } catch (err) {
    if (!(err instanceof LocalModelUnavailableError)) throw err;
    const embedder = new HashEmbedder({ dimensions: settings.dimensions });
    logger.warn(
      { provider: 'local', model: settings.model, fallback: embedder.space.model, reason: err.message },
      LOCAL_FALLBACK_WARNING,
    );
    return embedder;
  }
}

/**
 * The embedder the settings ask for. Rejects with EmbeddingError (CONFIGURATION) on unusable
 * settings. Asynchronous because the local provider loads a model.
 */
export async function createEmbedder(settings: EmbedderSettings, logger: Logger): Promise<Embedder> {
  const log = logger.child({ component: 'embeddings' });
  if (settings.provider === 'local') return loadLocal(settings, log);
  return build(settings, log);
}
