import type { ServerResponse } from 'node:http';
import type { Registry } from '@bufbuild/protobuf';
import { status as GrpcStatus, type Metadata } from '@grpc/grpc-js';
import { GatewayError, internalError, upstreamUnavailable, type JsonObject } from './gateway-error.ts';
import { decodeStatusDetails, STATUS_DETAILS_KEY, type RichStatus } from './status-details.ts';

/** Canonical names of the gRPC codes, as the error body's "code". */
const CODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(GrpcStatus)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v, k]),
);

export function canonicalCodeName(code: number): string {
  return CODE_NAMES[code] ?? 'UNKNOWN';
}

/** The one table from gRPC status to HTTP status (docs/architecture.md, Errors). */
export function httpStatusFor(code: GrpcStatus, reason: string | undefined): number {
  switch (code) {
    case GrpcStatus.INVALID_ARGUMENT:
      return 400;
    case GrpcStatus.FAILED_PRECONDITION:
      return reason === 'SECURITY_REJECTED' || reason === 'IDEMPOTENCY_KEY_REUSED' ? 422 : 409;
    case GrpcStatus.UNAUTHENTICATED:
      return 401;
    case GrpcStatus.PERMISSION_DENIED:
      return 403;
    case GrpcStatus.NOT_FOUND:
      return 404;
    case GrpcStatus.ALREADY_EXISTS:
      return 409;
    case GrpcStatus.ABORTED:
      // Only when a service says why; any other ABORTED stays an unexplained 500.
      return reason === 'IDEMPOTENCY_KEY_IN_PROGRESS' ? 409 : 500;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcStatus.UNIMPLEMENTED:
      return 501;
    case GrpcStatus.UNAVAILABLE:
      return 503;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 504;
    case GrpcStatus.CANCELLED:
      return 499;
    default:
      return 500;
  }
}

/** The reason when the upstream sent no ErrorInfo. */
const DEFAULT_REASONS: Readonly<Record<number, string>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 'VALIDATION_FAILED',
  [GrpcStatus.FAILED_PRECONDITION]: 'FAILED_PRECONDITION',
  [GrpcStatus.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [GrpcStatus.PERMISSION_DENIED]: 'PERMISSION_DENIED',
  [GrpcStatus.NOT_FOUND]: 'NOT_FOUND',
  [GrpcStatus.ALREADY_EXISTS]: 'ALREADY_EXISTS',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'RATE_LIMITED',
  [GrpcStatus.UNIMPLEMENTED]: 'NOT_IMPLEMENTED',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'DEADLINE_EXCEEDED',
  [GrpcStatus.CANCELLED]: 'CANCELLED',
};

/** Messages for statuses whose upstream text is not shown (it may describe internals). */
const GENERIC_MESSAGES: Readonly<Record<number, string>> = {
  [GrpcStatus.DEADLINE_EXCEEDED]: 'the service did not answer in time',
  [GrpcStatus.CANCELLED]: 'the request was cancelled',
};

/** What a failed grpc-js call hands back. */
export interface GrpcErrorLike {
  readonly code?: number;
  readonly details?: string;
  readonly metadata?: Metadata;
}

/**
 * Maps a failed upstream call to the HTTP error. The upstream's message is shown for client errors
 * (Engram services put only client-safe text there); for 5xx statuses it is shown only when the
 * service sent rich details, and never for INTERNAL, UNKNOWN and the other 500s.
 */
export function errorFromGrpc(err: GrpcErrorLike, registry: Registry): GatewayError {
  const code = err.code as GrpcStatus | undefined;
  if (code === undefined || code === GrpcStatus.OK) return internalError(err);
  const bin = err.metadata?.get(STATUS_DETAILS_KEY)[0];
  const rich = decodeStatusDetails(typeof bin === 'string' ? undefined : bin, registry);
  if (code === GrpcStatus.UNAVAILABLE && rich === undefined) return upstreamUnavailable(err);
  const httpStatus = httpStatusFor(code, rich?.reason);
  if (httpStatus === 500) return internalError(err);
  const reason = rich?.reason ?? DEFAULT_REASONS[code] ?? canonicalCodeName(code);
  const message =
    rich?.message || (rich === undefined ? GENERIC_MESSAGES[code] : undefined) || err.details || reason;
  const headers =
    code === GrpcStatus.RESOURCE_EXHAUSTED
      ? rateLimitHeaders(rich)
      : rich?.retryAfterSeconds !== undefined
        ? { 'retry-after': String(rich.retryAfterSeconds) }
        : {};
  return new GatewayError(httpStatus, canonicalCodeName(code), reason, message, {
    details: rich?.details ?? [],
    detections: rich?.detections ?? [],
    headers,
    cause: err,
  });
}

const DECIMAL = /^\d{1,12}$/;

/**
 * Retry-After, and the RateLimit-* fields (IETF draft "RateLimit header fields for HTTP") from the
 * ErrorInfo metadata the limiter attaches: the budget that ran out, what is left of it (0) and the
 * seconds until it refills. Values that are not plain decimals are left out, never echoed.
 */
function rateLimitHeaders(rich: RichStatus | undefined): Record<string, string> {
  const retryAfter = rich?.retryAfterSeconds ?? 1;
  const headers: Record<string, string> = { 'retry-after': String(retryAfter) };
  const md = rich?.errorMetadata ?? {};
  const limit = md.limit;
  if (limit !== undefined && DECIMAL.test(limit)) {
    headers['ratelimit-limit'] = limit;
    headers['ratelimit-policy'] = `${limit};w=60`;
    const remaining = md.remaining;
    headers['ratelimit-remaining'] = remaining !== undefined && DECIMAL.test(remaining) ? remaining : '0';
    const reset = md.reset_seconds;
    headers['ratelimit-reset'] = reset !== undefined && DECIMAL.test(reset) ? reset : String(retryAfter);
  }
  return headers;
}

/** The JSON error body every error response carries. */
export function errorBody(err: GatewayError): { error: JsonObject } {
  const error: JsonObject = {
    code: err.code,
    status: err.httpStatus,
    reason: err.reason,
    message: err.message,
    details: [...err.details],
  };
  if (err.detections.length > 0) error.detections = [...err.detections];
  return { error };
}

/** Writes the error response; when headers already went out, the connection is cut instead. */
export function writeError(res: ServerResponse, err: GatewayError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const payload = JSON.stringify(errorBody(err));
  res.statusCode = err.httpStatus;
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(payload);
}
