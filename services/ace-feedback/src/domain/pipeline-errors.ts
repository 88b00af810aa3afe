import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  SecurityRejectedError,
  type EngramError,
} from '@engram/errors';
import type { ItemError } from '@engram/proto/engram/ingest/v1/ingest';

/**
 * The domain error of a write the pipeline refused for one item, so a reflection refused by content
 * policy answers 422 SECURITY_REJECTED with its detections, exactly like POST /memories/add.
 */
export function itemErrorToDomain(err: ItemError, fieldPrefix = ''): EngramError {
  if (err.reason === 'SECURITY_REJECTED') {
    return new SecurityRejectedError(
      err.message,
      err.detections.map((d) => ({
        category: d.category,
        type: d.type,
        action: d.action,
        stage: d.stage,
        ...(d.start !== undefined ? { start: d.start } : {}),
        ...(d.end !== undefined ? { end: d.end } : {}),
      })),
    );
  }
  switch (err.code) {
    case 'INVALID_ARGUMENT':
      return new InvalidArgumentError(
        err.message,
        err.field_violations.map((v) => ({ field: fieldPrefix + v.field, description: v.description })),
        err.reason || 'VALIDATION_FAILED',
      );
    case 'PERMISSION_DENIED':
      return new PermissionDeniedError(err.message, err.reason || 'PERMISSION_DENIED');
    case 'NOT_FOUND':
      return new NotFoundError(err.message);
    default:
      return new ConflictError(err.message, err.reason || 'FAILED_PRECONDITION', 'FAILED_PRECONDITION');
  }
}
