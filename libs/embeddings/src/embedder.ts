export type EmbeddingProvider = 'hash' | 'openai' | 'local';

/**
 * The space a vector lives in. Vectors of different spaces are not comparable: the store records
 * its space at initialisation and refuses to run with another.
 */
export interface EmbeddingSpace {
  readonly provider: EmbeddingProvider;
  readonly model: string;
  readonly dimensions: number;
}

/** Turns texts into vectors of `space.dimensions`, L2-normalised (cosine similarity = dot product). */
export interface Embedder {
  readonly space: EmbeddingSpace;
  /** One vector per text, in input order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}
