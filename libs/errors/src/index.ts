export {
  AbortedError,
  ConflictError,
  EngramError,
  findCause,
  hasCause,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  SecurityRejectedError,
  UnauthenticatedError,
  UnavailableError,
  UnimplementedError,
} from './domain-errors.ts';
export { isDependencyDown } from './dependency-down.ts';
export type { CanonicalCode, DetectionInfo, FieldViolation } from './domain-errors.ts';
export {
  decodeCursor,
  decodeJsonCursor,
  encodeCursor,
  isCursorTimestamp,
  isUuid,
  parseLimit,
  parseTimestamp,
  parseUuid,
  refuseCursor,
} from './strict-input.ts';
