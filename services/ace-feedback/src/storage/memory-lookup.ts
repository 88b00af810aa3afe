import type { Reader } from '@engram/auth';
import type { Database } from '@engram/db';
import {
  byEffectiveness,
  deepestProvenance,
  loadEffectiveness,
  similarPairs,
  visibleByIds,
  visibleIds,
} from '@engram/memories';
import type { MemoryLookup } from '../domain/ports.ts';

/**
 * The feedback loop's reads of memory-store's tables, through @engram/memories: always inside the
 * reader's visibility (SQL), on the read connection.
 */
export class KnexMemoryLookup implements MemoryLookup {
  constructor(private readonly db: Database) {}

  visibleIds(reader: Reader, ids: readonly string[]) {
    return visibleIds(this.db.read, reader, ids);
  }

  byIds(reader: Reader, ids: readonly string[]) {
    return visibleByIds(this.db.read, reader, ids);
  }

  deepestProvenance(projectId: string, ids: readonly string[]) {
    return deepestProvenance(this.db.read, projectId, ids);
  }

  byEffectiveness(
    reader: Reader,
    namespace: string,
    threshold: number,
    side: 'above' | 'below',
    limit: number,
    offset: number,
  ) {
    return byEffectiveness(this.db.read, reader, namespace, threshold, side, limit, offset);
  }

  similarPairs(
    reader: Reader,
    namespace: string,
    minSimilarity: number,
    opts: { neighbours: number; maxMemories: number },
  ) {
    return similarPairs(this.db, reader, namespace, minSimilarity, opts);
  }

  effectiveness(projectId: string, ids: readonly string[]) {
    return loadEffectiveness(this.db.read, projectId, ids);
  }
}
