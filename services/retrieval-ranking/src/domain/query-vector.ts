import { UnavailableError } from '@engram/errors';
import type { Embedder } from '@engram/embeddings';
import type { SearchRepository } from './search.ts';

/**
 * The query's vector in the store's embedding space, or undefined when the store has no space yet
 * (memory-store pins it on its first start, so nothing is stored). A process configured with another
 * space than the store's answers UNAVAILABLE: its vectors would not be comparable.
 */
export async function embedQuery(
  deps: { readonly search: SearchRepository; readonly embedder: Embedder },
  text: string,
): Promise<number[] | undefined> {
  const space = await deps.search.embeddingSpace();
  if (!space) return undefined;
  const mine = deps.embedder.space;
  if (
    space.provider !== mine.provider ||
    space.model !== mine.model ||
    space.dimensions !== mine.dimensions
  ) {
    throw new UnavailableError(
      'the embedding space of this process differs from the store; check EMBEDDING_* settings',
    );
  }
  const [vector] = await deps.embedder.embed([text]);
  return vector ?? [];
}
