import { InvalidArgumentError, type EngramError } from '@engram/errors';

/**
 * The error of an item the write pipeline refused, thrown again by the operation that asked for the
 * write, so a reflection refused by content policy answers 422 SECURITY_REJECTED with its
 * detections, exactly like POST /memories/add. Field paths are prefixed with where the item came
 * from in this request (e.g. "evaluation.").
 */
export function pipelineError(err: EngramError, fieldPrefix = ''): EngramError {
  if (fieldPrefix === '' || !(err instanceof InvalidArgumentError)) return err;
  return new InvalidArgumentError(
    err.message,
    err.fieldViolations.map((v) => ({ ...v, field: fieldPrefix + v.field })),
    err.reason,
  );
}
