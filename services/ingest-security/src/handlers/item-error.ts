import { EngramError } from '@engram/errors';
import type { WriteResult } from '@engram/memory-model';
import { rpcStatusOf } from '@engram/grpc-kit';
import type { BatchItemResult } from '@engram/proto/engram/ingest/v1/ingest';
import type { Status } from '@engram/proto/google/rpc/status';

/**
 * The error of one refused batch item: the google.rpc.Status a single write would have failed with
 * (the gateway maps it with its one table). Anything that is not a domain error is rethrown.
 */
export function itemError(err: unknown): Status {
  if (err instanceof EngramError) return rpcStatusOf(err);
  throw err;
}

/** Puts memory-store's results into the batch results at the indexes of the accepted items. */
export function fillStored(
  results: BatchItemResult[],
  accepted: readonly { index: number }[],
  stored: readonly WriteResult[],
): void {
  accepted.forEach((a, i) => {
    const r = stored[i];
    if (r) {
      results[a.index] = {
        index: a.index,
        id: r.id,
        deduplicated: r.deduplicated,
        scope: r.scope,
        content_flags: r.content_flags,
      };
    }
  });
}
