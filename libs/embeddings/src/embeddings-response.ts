import { EmbeddingError } from './embedding-error.ts';
import { l2NormalizeInPlace } from './l2-normalize.ts';

function malformed(what: string): EmbeddingError {
  return new EmbeddingError(`embedding provider answered with ${what}`, 'MALFORMED_RESPONSE');
}

/**
 * Checks an OpenAI embeddings response `{data: [{embedding: number[], index}]}` for `count` inputs
 * and returns the vectors in input order (by index), L2-normalised.
 */
export function parseEmbeddingsResponse(body: unknown, count: number, dimensions: number): number[][] {
  if (typeof body !== 'object' || body === null) throw malformed('a body that is not a JSON object');
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) throw malformed('no data list');
  if (data.length !== count) throw malformed(`${data.length} embeddings for ${count} inputs`);
  const out = new Array<number[] | undefined>(count).fill(undefined);
  for (const item of data as unknown[]) {
    if (typeof item !== 'object' || item === null) throw malformed('a data entry that is not an object');
    const { embedding, index } = item as { embedding?: unknown; index?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw malformed('a missing or out-of-range index');
    }
    if (out[index] !== undefined) throw malformed('a repeated index');
    if (!Array.isArray(embedding)) throw malformed('an embedding that is not a list of numbers');
    if (embedding.length !== dimensions) {
      throw new EmbeddingError(
        `embedding provider returned ${embedding.length}-dimensional vectors; ${dimensions} are configured ` +
          `(EMBEDDING_DIMENSIONS)`,
        'DIMENSION_MISMATCH',
      );
    }
    const vector = new Array<number>(dimensions);
    for (let i = 0; i < dimensions; i++) {
      const x: unknown = embedding[i];
      if (typeof x !== 'number' || !Number.isFinite(x))
        throw malformed('an embedding with a non-finite number');
      vector[i] = x;
    }
    if (l2NormalizeInPlace(vector) === undefined) throw malformed('an all-zero embedding');
    out[index] = vector;
  }
  return out as number[][];
}
