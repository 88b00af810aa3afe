import { EngramError, InvalidArgumentError, SecurityRejectedError } from '@engram/errors';
import type { BatchItemResult, ItemError } from '@engram/proto/engram/ingest/v1/ingest';
import type { WriteResult } from '@engram/proto/engram/memory/v1/memory';

const HTTP_BY_CODE: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 422,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
};

/** The error of one batch item, shaped like the HTTP error body; anything unexpected is rethrown. */
export function itemError(err: unknown): ItemError {
  if (err instanceof EngramError) {
    return {
      code: err.code,
      status: HTTP_BY_CODE[err.code] ?? 500,
      reason: err.reason,
      message: err.message,
      detections:
        err instanceof SecurityRejectedError
          ? err.detections.map((d) => ({
              category: d.category,
              type: d.type,
              action: d.action,
              stage: d.stage,
              start: d.start,
              end: d.end,
            }))
          : [],
      field_violations:
        err instanceof InvalidArgumentError
          ? err.fieldViolations.map((v) => ({ field: v.field, description: v.description }))
          : [],
    };
  }
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
