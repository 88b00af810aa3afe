import { EmbeddingError } from './embedding-error.ts';
import { l2NormalizeInPlace } from './l2-normalize.ts';

function malformed(what: string): EmbeddingError {
  return new EmbeddingError(`embedding provider answered with ${what}`, 'MALFORMED_RESPONSE');
}

function wrongSize(found: number, dimensions: number): EmbeddingError {
  return new EmbeddingError(
    `embedding provider returned ${found}-dimensional vectors; ${dimensions} are configured (EMBEDDING_DIMENSIONS)`,
    'DIMENSION_MISMATCH',
  );
}

/**
 * The bytes of a padded base64 string, or undefined when it is not one. Buffer.from skips characters
 * outside the alphabet and stops at a misplaced '=', so each of those makes the decoded output shorter
 * than a whole string's 3 bytes per 4 characters; comparing the lengths finds them without a regular
 * expression over every character (this runs on every vector a query embeds). The URL-safe letters
 * '-' and '_' decode like '+' and '/'.
 */
function base64Bytes(text: string): Buffer | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === (text.length / 4) * 3 - padding ? bytes : undefined;
}

/**
 * One embedding's numbers: a JSON list of numbers, or (encoding_format base64) a string holding the
 * little-endian float32 bytes. Either must have `dimensions` finite components.
 */
function componentsOf(embedding: unknown, dimensions: number): number[] {
  const vector = new Array<number>(dimensions);
  if (typeof embedding === 'string') {
    const bytes = base64Bytes(embedding);
    if (bytes === undefined) throw malformed('an embedding string that is not base64');
    if (bytes.length % 4 !== 0) throw malformed('a base64 embedding that is not whole float32 numbers');
    if (bytes.length / 4 !== dimensions) throw wrongSize(bytes.length / 4, dimensions);
    for (let i = 0; i < dimensions; i++) {
      const x = bytes.readFloatLE(i * 4);
      if (!Number.isFinite(x)) throw malformed('an embedding with a non-finite number');
      vector[i] = x;
    }
    return vector;
  }
  if (!Array.isArray(embedding)) throw malformed('an embedding that is not a list of numbers');
  if (embedding.length !== dimensions) throw wrongSize(embedding.length, dimensions);
  for (let i = 0; i < dimensions; i++) {
    const x: unknown = embedding[i];
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw malformed('an embedding with a non-finite number');
    vector[i] = x;
  }
  return vector;
}

/**
 * Checks an OpenAI embeddings response `{data: [{embedding, index}]}` for `count` inputs, each
 * embedding a list of numbers or a base64 string of float32s, and returns the vectors in input order
 * (by index), L2-normalised.
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
    const vector = componentsOf(embedding, dimensions);
    if (l2NormalizeInPlace(vector) === undefined) throw malformed('an all-zero embedding');
    out[index] = vector;
  }
  return out as number[][];
}
