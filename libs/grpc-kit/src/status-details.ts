import { Metadata, status as Status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import {
  AbortedError,
  ConflictError,
  EngramError,
  InvalidArgumentError,
  isDependencyDown,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  SecurityRejectedError,
  UnauthenticatedError,
  UnavailableError,
} from '@engram/errors';
import type { Any } from '@engram/proto/google/protobuf/any';
import type { Duration } from '@engram/proto/google/protobuf/duration';
import { BadRequest, ErrorInfo, RetryInfo } from '@engram/proto/google/rpc/error_details';
import { Status as RpcStatus } from '@engram/proto/google/rpc/status';
import { Detection } from '@engram/proto/engram/memory/v1/memory';
import { dataExceptionError, dataExceptionOf } from './data-exception.ts';
import { NO_RETRY_PUSHBACK } from './service-config.ts';

export const ERROR_DOMAIN = 'engram.dev';
const DETAILS_KEY = 'grpc-status-details-bin';
const TYPE_PREFIX = 'type.googleapis.com/';

const CODES: Record<EngramError['code'], Status> = {
  INVALID_ARGUMENT: Status.INVALID_ARGUMENT,
  FAILED_PRECONDITION: Status.FAILED_PRECONDITION,
  UNAUTHENTICATED: Status.UNAUTHENTICATED,
  PERMISSION_DENIED: Status.PERMISSION_DENIED,
  NOT_FOUND: Status.NOT_FOUND,
  ALREADY_EXISTS: Status.ALREADY_EXISTS,
  ABORTED: Status.ABORTED,
  RESOURCE_EXHAUSTED: Status.RESOURCE_EXHAUSTED,
  UNIMPLEMENTED: Status.UNIMPLEMENTED,
  UNAVAILABLE: Status.UNAVAILABLE,
  DEADLINE_EXCEEDED: Status.DEADLINE_EXCEEDED,
  INTERNAL: Status.INTERNAL,
};

function pack(typeName: string, value: Uint8Array): Any {
  return { type_url: TYPE_PREFIX + typeName, value: Buffer.from(value) };
}

/** The google.rpc details of a domain error: ErrorInfo always, plus BadRequest / RetryInfo / detections. */
function detailsOf(err: EngramError): Any[] {
  const details: Any[] = [
    pack(
      'google.rpc.ErrorInfo',
      ErrorInfo.encode({ reason: err.reason, domain: ERROR_DOMAIN, metadata: { ...err.metadata } }).finish(),
    ),
  ];
  if (err instanceof InvalidArgumentError && err.fieldViolations.length > 0) {
    const field_violations = err.fieldViolations.map((v) => ({
      field: v.field,
      description: v.description,
      reason: v.reason ?? '',
    }));
    details.push(pack('google.rpc.BadRequest', BadRequest.encode({ field_violations }).finish()));
  }
  if (err instanceof RateLimitedError || err instanceof AbortedError) {
    const seconds = Math.floor(err.retryAfterMs / 1000);
    const retry_delay: Duration = { seconds, nanos: (err.retryAfterMs % 1000) * 1e6 };
    details.push(pack('google.rpc.RetryInfo', RetryInfo.encode({ retry_delay }).finish()));
  }
  if (err instanceof SecurityRejectedError) {
    for (const d of err.detections) {
      details.push(
        pack(
          'engram.memory.v1.Detection',
          Detection.encode({
            category: d.category,
            type: d.type,
            action: d.action,
            stage: d.stage,
            start: d.start,
            end: d.end,
          }).finish(),
        ),
      );
    }
  }
  return details;
}

/**
 * The google.rpc.Status of a domain error: what a call failing with it would carry, and what one
 * refused item of a batch carries in its result.
 */
export function rpcStatusOf(err: EngramError): RpcStatus {
  return { code: CODES[err.code], message: err.message, details: detailsOf(err) };
}

/**
 * The domain error of a google.rpc.Status another Engram service answered with (a refused batch
 * item), so that it can be thrown again and reach the client with the same code, reason, field
 * violations and detections. Anything this suite never sends as an item error becomes a 409.
 */
export function engramErrorOf(status: RpcStatus): EngramError {
  const d = detailsOfStatus(status);
  const reason = d.reason ?? '';
  switch (status.code as Status) {
    case Status.INVALID_ARGUMENT:
      return new InvalidArgumentError(
        status.message,
        d.fieldViolations.map((v) => ({ field: v.field, description: v.description, reason: v.reason })),
        reason || 'VALIDATION_FAILED',
      );
    case Status.UNAUTHENTICATED:
      return new UnauthenticatedError(status.message, reason || 'UNAUTHENTICATED');
    case Status.PERMISSION_DENIED:
      return new PermissionDeniedError(status.message, reason || 'PERMISSION_DENIED');
    case Status.NOT_FOUND:
      return new NotFoundError(status.message, reason || 'NOT_FOUND');
    case Status.UNAVAILABLE:
      return new UnavailableError(status.message);
    case Status.FAILED_PRECONDITION:
      if (reason === 'SECURITY_REJECTED') {
        return new SecurityRejectedError(
          status.message,
          d.detections.map((x) => ({
            category: x.category,
            type: x.type,
            action: x.action,
            stage: x.stage,
            ...(x.start !== undefined ? { start: x.start } : {}),
            ...(x.end !== undefined ? { end: x.end } : {}),
          })),
        );
      }
      return new ConflictError(status.message, reason || 'FAILED_PRECONDITION', 'FAILED_PRECONDITION');
    default:
      return new ConflictError(status.message, reason || 'ALREADY_EXISTS');
  }
}

/** A gRPC error that came from another Engram service; passed through unchanged. */
export function isServiceError(err: unknown): err is ServiceError {
  return (
    err instanceof Error &&
    typeof (err as Partial<ServiceError>).code === 'number' &&
    (err as Partial<ServiceError>).metadata instanceof Metadata
  );
}

/**
 * Maps any thrown value to the status sent to the client. Domain errors keep their message and get
 * rich details; errors relayed from another service pass through; a database data exception (SQLSTATE
 * class 22: a request value the database refused) becomes INVALID_ARGUMENT VALIDATION_FAILED; anything
 * else becomes INTERNAL with a generic message (the cause is logged by the caller, never sent).
 */
export function toStatus(err: unknown): Partial<StatusObject> & { code: Status } {
  if (err instanceof EngramError) {
    const code = CODES[err.code];
    const metadata = new Metadata();
    const rpcStatus = RpcStatus.encode(rpcStatusOf(err)).finish();
    metadata.set(DETAILS_KEY, Buffer.from(rpcStatus));
    if (code === Status.UNAVAILABLE) metadata.set(...NO_RETRY_PUSHBACK);
    return { code, details: err.message, metadata };
  }
  if (isServiceError(err)) {
    const metadata = new Metadata();
    const bin = err.metadata.get(DETAILS_KEY);
    for (const value of bin) metadata.add(DETAILS_KEY, value);
    if (err.code === Status.INTERNAL || err.code === Status.UNKNOWN) {
      return { code: Status.INTERNAL, details: 'internal error', metadata };
    }
    // A live server answers: retrying it on another replica would not help (service-config.ts).
    if (err.code === Status.UNAVAILABLE) metadata.set(...NO_RETRY_PUSHBACK);
    return { code: err.code, details: err.details, metadata };
  }
  if (dataExceptionOf(err) !== undefined) return toStatus(dataExceptionError());
  if (isDependencyDown(err)) return toStatus(new UnavailableError(undefined, err));
  return { code: Status.INTERNAL, details: 'internal error' };
}

/** Decodes the rich details a status carries (for service-to-service callers and tests). */
export function decodeStatusDetails(err: ServiceError): {
  reason?: string;
  /** ErrorInfo.metadata (for RATE_LIMITED: scope, limit, remaining, reset_seconds). */
  metadata: Record<string, string>;
  /** RetryInfo.retry_delay in milliseconds, when present. */
  retryDelayMs?: number;
  fieldViolations: { field: string; description: string; reason: string }[];
  detections: Detection[];
} {
  const bin = err.metadata.get(DETAILS_KEY)[0];
  if (!(bin instanceof Buffer)) return { metadata: {}, fieldViolations: [], detections: [] };
  return detailsOfStatus(RpcStatus.decode(bin));
}

function detailsOfStatus(status: RpcStatus): ReturnType<typeof decodeStatusDetails> {
  const out: ReturnType<typeof decodeStatusDetails> = { metadata: {}, fieldViolations: [], detections: [] };
  for (const any of status.details) {
    const type = any.type_url.slice(any.type_url.lastIndexOf('/') + 1);
    if (type === 'google.rpc.ErrorInfo') {
      const info = ErrorInfo.decode(any.value);
      out.reason = info.reason;
      out.metadata = { ...info.metadata };
    } else if (type === 'google.rpc.RetryInfo') {
      const d = RetryInfo.decode(any.value).retry_delay;
      if (d !== undefined) out.retryDelayMs = d.seconds * 1000 + Math.round(d.nanos / 1e6);
    }
    if (type === 'google.rpc.BadRequest')
      out.fieldViolations.push(...BadRequest.decode(any.value).field_violations);
    else if (type === 'engram.memory.v1.Detection') out.detections.push(Detection.decode(any.value));
  }
  return out;
}
