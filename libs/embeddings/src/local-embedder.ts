import { basename, dirname, resolve, sep } from 'node:path';
import type { Embedder, EmbeddingSpace } from './embedder.ts';
import { EmbeddingError } from './embedding-error.ts';

/** Texts per forward pass of the local model. */
export const LOCAL_BATCH = 32;

export interface LocalEmbedderOptions {
  /** EMBEDDING_MODEL: the model's name (also the space's model), e.g. Xenova/all-MiniLM-L6-v2. */
  readonly model: string;
  /** EMBEDDING_MODEL_PATH: a directory holding config.json, tokenizer.json and onnx/model.onnx. */
  readonly modelPath?: string | undefined;
  /** Where models are looked up by name when there is no modelPath (<data dir>/models). */
  readonly cacheDir?: string | undefined;
  /** EMBEDDING_DIMENSIONS: must equal the model's output size. */
  readonly dimensions: number;
  readonly batchSize?: number | undefined;
}

/** The local model's files are not there (nothing is ever downloaded: allowRemoteModels is false). */
export class LocalModelUnavailableError extends EmbeddingError {}

type Extractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ tolist(): unknown }>;

/** A unit vector; a degenerate output (all zeros, non-finite) becomes the unit vector on the last dimension. */
function sane(v: number[]): number[] {
  const norm = Math.hypot(...v);
  if (Number.isFinite(norm) && norm > 0) return v;
  const out = new Array<number>(v.length).fill(0);
  out[v.length - 1] = 1;
  return out;
}

/**
 * EMBEDDING_PROVIDER=local: an ONNX sentence-transformer run in-process by transformers.js
 * (onnxruntime-node on the CPU), mean pooling and L2 normalisation, batched. Offline by
 * construction: env.allowRemoteModels is false, so the model comes from EMBEDDING_MODEL_PATH or from
 * <cacheDir>/<model name>/ and never from the network. transformers.js keeps its settings in one
 * module-wide `env`; this is the only code in the process that sets them.
 */
export class LocalEmbedder implements Embedder {
  private constructor(
    readonly space: EmbeddingSpace,
    private readonly extract: Extractor,
    private readonly batchSize: number,
  ) {}

  static async load(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
    const batchSize = options.batchSize ?? LOCAL_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new EmbeddingError('local embedding batch size must be a positive integer', 'CONFIGURATION');
    }
    const { env, pipeline } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    let id = options.model;
    let where: string;
    if (options.modelPath) {
      const dir = resolve(options.modelPath);
      env.allowLocalModels = true;
      env.localModelPath = dirname(dir) + sep;
      id = basename(dir);
      where = dir;
    } else {
      if (options.cacheDir) {
        env.localModelPath = resolve(options.cacheDir) + sep;
        env.cacheDir = resolve(options.cacheDir);
      }
      where = `${env.localModelPath}${options.model}`;
    }
    let extract: Extractor;
    try {
      extract = await pipeline('feature-extraction', id, {
        dtype: 'fp32',
        local_files_only: true,
      });
    } catch (err) {
      throw new LocalModelUnavailableError(
        `the local embedding model ${options.model} could not be loaded from ${where} (set EMBEDDING_MODEL_PATH to a directory with config.json, tokenizer.json and onnx/model.onnx)`,
        'CONFIGURATION',
        { cause: err },
      );
    }
    const embedder = new LocalEmbedder(
      { provider: 'local', model: options.model, dimensions: options.dimensions },
      extract,
      batchSize,
    );
    const [probe] = await embedder.run(['dimension probe']);
    if (probe?.length !== options.dimensions) {
      throw new EmbeddingError(
        `the local model ${options.model} produces ${probe?.length ?? 0}-d vectors but EMBEDDING_DIMENSIONS is ${options.dimensions}`,
        'DIMENSION_MISMATCH',
      );
    }
    return embedder;
  }

  private async run(texts: string[]): Promise<number[][]> {
    const out = await this.extract(texts, { pooling: 'mean', normalize: true });
    const rows = out.tolist();
    if (!Array.isArray(rows) || rows.length !== texts.length) {
      throw new EmbeddingError('the local model returned an unexpected output shape', 'MALFORMED_RESPONSE');
    }
    return (rows as number[][]).map((r) => sane(r.map(Number)));
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.run(texts.slice(i, i + this.batchSize))));
    }
    for (const v of out) {
      if (v.length !== this.space.dimensions) {
        throw new EmbeddingError(
          `the local model returned ${v.length}-d vectors, expected ${this.space.dimensions}`,
          'DIMENSION_MISMATCH',
        );
      }
    }
    return out;
  }
}
