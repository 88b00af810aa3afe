import type { Logger } from '@engram/logger';
import type { Embedder, EmbeddingSpace } from './embedder.ts';
import { EmbeddingError } from './embedding-error.ts';
import { parseEmbeddingsResponse } from './embeddings-response.ts';
import { JsonPoster } from './post-json.ts';

export const OPENAI_MAX_BATCH = 64;
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 10_000;

export interface OpenAiEmbedderOptions {
  /** Base URL of an OpenAI-compatible API, for instance https://api.openai.com/v1; /embeddings is appended. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set (local servers such as Ollama need none). */
  readonly apiKey?: string | undefined;
  readonly model: string;
  /** The configured dimensions; a response with vectors of another size is an error. */
  readonly dimensions: number;
  /** Per request (one batch), including reading the body. Default 10 s. */
  readonly timeoutMs?: number | undefined;
  /** Inputs per request, 1 to 64. Default 64. */
  readonly batchSize?: number | undefined;
  /**
   * encoding_format asked for: base64 (default; little-endian float32, as the official SDKs ask) or
   * float (the field is left out, for servers that refuse it). Either answer is read.
   */
  readonly encodingFormat?: 'base64' | 'float' | undefined;
  readonly logger?: Logger | undefined;
}

/** A provider's error code, only when it looks like an identifier (never free text that could echo input). */
function providerCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, type } = error as { code?: unknown; type?: unknown };
  const candidate = typeof code === 'string' ? code : typeof type === 'string' ? type : undefined;
  return candidate !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(candidate) ? candidate : undefined;
}

/**
 * Embeddings from any OpenAI-compatible POST {baseUrl}/embeddings (OpenAI, Azure, Ollama, vLLM,
 * TEI...). Batches of at most 64 inputs, sent one after the other; each answer is checked (one
 * vector per input, indexes 0..n-1, the configured dimensions, finite numbers), put back in input
 * order and L2-normalised. Every failure is an EmbeddingError. Input text is never logged and never
 * appears in an error.
 */
export class OpenAiEmbedder implements Embedder {
  readonly space: EmbeddingSpace;
  private readonly poster: JsonPoster;
  private readonly encodingFormat: 'base64' | 'float';
  private readonly batchSize: number;
  private readonly logger: Logger | undefined;

  constructor(options: OpenAiEmbedderOptions) {
    if (!options.baseUrl) {
      throw new EmbeddingError(
        'the openai embedding provider needs a base URL (EMBEDDING_BASE_URL)',
        'CONFIGURATION',
      );
    }
    let url: URL;
    try {
      url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/embeddings`);
    } catch (err) {
      throw new EmbeddingError('EMBEDDING_BASE_URL is not a valid URL', 'CONFIGURATION', { cause: err });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EmbeddingError('EMBEDDING_BASE_URL must be an http or https URL', 'CONFIGURATION');
    }
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
      throw new EmbeddingError('embedding dimensions must be a positive integer', 'CONFIGURATION');
    }
    const batchSize = options.batchSize ?? OPENAI_MAX_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > OPENAI_MAX_BATCH) {
      throw new EmbeddingError(`embedding batch size must be from 1 to ${OPENAI_MAX_BATCH}`, 'CONFIGURATION');
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new EmbeddingError('embedding timeout must be positive', 'CONFIGURATION');

    const encodingFormat = options.encodingFormat ?? 'base64';
    if (encodingFormat !== 'base64' && encodingFormat !== 'float') {
      throw new EmbeddingError('embedding encoding format must be base64 or float', 'CONFIGURATION');
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
    this.poster = new JsonPoster(url, headers, timeoutMs);
    this.encodingFormat = encodingFormat;
    this.batchSize = batchSize;
    this.logger = options.logger;
    this.space = Object.freeze({ provider: 'openai', model: options.model, dimensions: options.dimensions });
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      const vectors = await this.embedBatch(batch);
      for (const v of vectors) out.push(v);
    }
    return out;
  }

  private async embedBatch(batch: readonly string[]): Promise<number[][]> {
    const started = performance.now();
    const request: Record<string, unknown> = { model: this.space.model, input: batch };
    if (this.encodingFormat === 'base64') request['encoding_format'] = 'base64';
    const { status, text } = await this.poster.post(JSON.stringify(request));
    if (status < 200 || status > 299) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const code = providerCode(parsed);
      throw new EmbeddingError(
        `embedding provider answered HTTP ${status}${code ? ` (${code})` : ''}`,
        'HTTP_STATUS',
        {
          status,
        },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new EmbeddingError(
        'embedding provider answered with a body that is not JSON',
        'MALFORMED_RESPONSE',
        {
          cause: err,
        },
      );
    }
    const vectors = parseEmbeddingsResponse(body, batch.length, this.space.dimensions);
    this.logger?.debug(
      { inputs: batch.length, duration_ms: Math.round(performance.now() - started) },
      'embedding batch done',
    );
    return vectors;
  }
}
