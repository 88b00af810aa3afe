/**
 * Named domain errors. Domain code throws these; one adapter (grpc-kit) turns them into a gRPC
 * status with google.rpc details, and one table (gateway) turns that into HTTP. The message is safe
 * to show a client; the `cause` never leaves the process.
 */
export type CanonicalCode =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'ABORTED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'INTERNAL';

export interface FieldViolation {
  readonly field: string;
  readonly description: string;
  /** Machine-readable, e.g. TOO_LONG, CONTROL_CHARACTER, REQUIRED. */
  readonly reason?: string;
}

export interface DetectionInfo {
  readonly category: string;
  readonly type: string;
  readonly action: string;
  readonly stage: number;
  readonly start?: number;
  readonly end?: number;
}

export abstract class EngramError extends Error {
  abstract readonly code: CanonicalCode;
  /** UPPER_SNAKE_CASE machine-readable reason (google.rpc.ErrorInfo.reason). */
  readonly reason: string;
  readonly metadata: Readonly<Record<string, string>>;

  constructor(
    message: string,
    reason: string,
    opts: { cause?: unknown; metadata?: Record<string, string> } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.reason = reason;
    this.metadata = opts.metadata ?? {};
  }
}

export class InvalidArgumentError extends EngramError {
  override readonly name = 'InvalidArgumentError';
  readonly code = 'INVALID_ARGUMENT' as const;
  constructor(
    message: string,
    readonly fieldViolations: readonly FieldViolation[] = [],
    reason = 'VALIDATION_FAILED',
  ) {
    super(message, reason);
  }
}

export class SecurityRejectedError extends EngramError {
  override readonly name = 'SecurityRejectedError';
  readonly code = 'FAILED_PRECONDITION' as const;
  constructor(
    message: string,
    readonly detections: readonly DetectionInfo[],
  ) {
    super(message, 'SECURITY_REJECTED');
  }
}

export class UnauthenticatedError extends EngramError {
  override readonly name = 'UnauthenticatedError';
  readonly code = 'UNAUTHENTICATED' as const;
  constructor(message = 'a valid API key is required', reason = 'UNAUTHENTICATED') {
    super(message, reason);
  }
}

export class PermissionDeniedError extends EngramError {
  override readonly name = 'PermissionDeniedError';
  readonly code = 'PERMISSION_DENIED' as const;
  /** reason: AGENT_MISMATCH, SCOPE_FORBIDDEN, TRUST_FORBIDDEN, ADMIN_REQUIRED, ... */
  constructor(message: string, reason: string) {
    super(message, reason);
  }
}

export class NotFoundError extends EngramError {
  override readonly name = 'NotFoundError';
  readonly code = 'NOT_FOUND' as const;
  constructor(message = 'not found', reason = 'NOT_FOUND') {
    super(message, reason);
  }
}

export class ConflictError extends EngramError {
  override readonly name = 'ConflictError';
  readonly code: 'ALREADY_EXISTS' | 'FAILED_PRECONDITION';
  constructor(
    message: string,
    reason = 'ALREADY_EXISTS',
    code: 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' = 'ALREADY_EXISTS',
  ) {
    super(message, reason);
    this.code = code;
  }
}

export class RateLimitedError extends EngramError {
  override readonly name = 'RateLimitedError';
  readonly code = 'RESOURCE_EXHAUSTED' as const;
  constructor(
    message: string,
    readonly retryAfterMs: number,
    metadata: Record<string, string> = {},
  ) {
    super(message, 'RATE_LIMITED', { metadata });
  }
}

/**
 * A concurrent operation holds what this one needs; the same request may succeed after retryAfterMs
 * (e.g. IDEMPOTENCY_KEY_IN_PROGRESS: the first request with that Idempotency-Key is still running).
 */
export class AbortedError extends EngramError {
  override readonly name = 'AbortedError';
  readonly code = 'ABORTED' as const;
  constructor(
    message: string,
    reason: string,
    readonly retryAfterMs: number,
  ) {
    super(message, reason);
  }
}

export class UnimplementedError extends EngramError {
  override readonly name = 'UnimplementedError';
  readonly code = 'UNIMPLEMENTED' as const;
  constructor(message = 'not implemented yet', reason = 'NOT_IMPLEMENTED') {
    super(message, reason);
  }
}

export class UnavailableError extends EngramError {
  override readonly name = 'UnavailableError';
  readonly code = 'UNAVAILABLE' as const;
  constructor(message = 'a dependency is unavailable, retry later', cause?: unknown) {
    super(message, 'DEPENDENCY_UNAVAILABLE', { cause });
  }
}

/** Walks the cause chain; true when any link is an instance of the class. */
export function hasCause<T extends Error>(err: unknown, cls: abstract new (...args: never[]) => T): boolean {
  return findCause(err, cls) !== undefined;
}

/** The first link of the cause chain that is an instance of the class. */
export function findCause<T extends Error>(
  err: unknown,
  cls: abstract new (...args: never[]) => T,
): T | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    if (cur instanceof cls) return cur;
    seen.add(cur);
    cur = cur.cause;
  }
  return undefined;
}
