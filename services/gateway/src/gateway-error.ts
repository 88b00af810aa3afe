/**
 * The one error type of the gateway: everything that ends in an HTTP error response (a bad request,
 * an unknown route, an upstream gRPC status) is turned into a GatewayError and written by
 * error-writer.ts. The message is safe to show a client; `cause` stays in the process.
 */

/** A JSON value as the error body carries it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';
export const DETECTION_TYPE = 'type.googleapis.com/engram.memory.v1.Detection';

/** The ErrorInfo domain of errors the gateway raises itself. */
export const GATEWAY_ERROR_DOMAIN = 'gateway.engram.dev';

export interface GatewayErrorOptions {
  /** google.rpc details rendered as JSON, each with "@type". */
  readonly details?: readonly JsonObject[];
  /** Content-security detections, repeated at error.detections. */
  readonly detections?: readonly JsonObject[];
  /** Extra response headers (Allow, Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly details: readonly JsonObject[];
  readonly detections: readonly JsonObject[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    /** The HTTP status of the response. */
    readonly httpStatus: number,
    /** Canonical gRPC code name, e.g. INVALID_ARGUMENT. */
    readonly code: string,
    /** UPPER_SNAKE_CASE machine-readable reason. */
    readonly reason: string,
    message: string,
    opts: GatewayErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.details = opts.details ?? [];
    this.detections = opts.detections ?? [];
    this.headers = opts.headers ?? {};
  }
}

function errorInfo(reason: string): JsonObject {
  return { '@type': ERROR_INFO_TYPE, reason, domain: GATEWAY_ERROR_DOMAIN, metadata: {} };
}

/** 400 VALIDATION_FAILED naming the offending field (body path, query parameter or path variable). */
export function validationFailed(field: string, description: string, cause?: unknown): GatewayError {
  const message = field === '' ? description : `${field}: ${description}`;
  return new GatewayError(400, 'INVALID_ARGUMENT', 'VALIDATION_FAILED', message, {
    details: [
      errorInfo('VALIDATION_FAILED'),
      {
        '@type': BAD_REQUEST_TYPE,
        field_violations: [{ field, description, reason: 'INVALID_VALUE' }],
      },
    ],
    cause,
  });
}

export function routeNotFound(): GatewayError {
  return new GatewayError(404, 'NOT_FOUND', 'ROUTE_NOT_FOUND', 'no route matches this path', {
    details: [errorInfo('ROUTE_NOT_FOUND')],
  });
}

export function methodNotAllowed(allow: readonly string[]): GatewayError {
  return new GatewayError(
    405,
    'UNIMPLEMENTED',
    'METHOD_NOT_ALLOWED',
    `method not allowed on this path; allowed: ${allow.join(', ')}`,
    { details: [errorInfo('METHOD_NOT_ALLOWED')], headers: { allow: allow.join(', ') } },
  );
}

export function payloadTooLarge(limitBytes: number): GatewayError {
  return new GatewayError(
    413,
    'INVALID_ARGUMENT',
    'PAYLOAD_TOO_LARGE',
    `request body exceeds ${limitBytes} bytes`,
    { details: [errorInfo('PAYLOAD_TOO_LARGE')] },
  );
}

export function unsupportedMediaType(): GatewayError {
  return new GatewayError(
    415,
    'INVALID_ARGUMENT',
    'UNSUPPORTED_MEDIA_TYPE',
    'request body must be application/json',
    { details: [errorInfo('UNSUPPORTED_MEDIA_TYPE')] },
  );
}

export function upstreamUnavailable(cause?: unknown): GatewayError {
  return new GatewayError(
    503,
    'UNAVAILABLE',
    'UPSTREAM_UNAVAILABLE',
    'the service behind this route is unavailable, retry later',
    { details: [errorInfo('UPSTREAM_UNAVAILABLE')], headers: { 'retry-after': '1' }, cause },
  );
}

/** A bug in the gateway itself: a generic 500, the cause only in the log. */
export function internalError(cause?: unknown): GatewayError {
  return new GatewayError(500, 'INTERNAL', 'INTERNAL', 'internal error', {
    details: [errorInfo('INTERNAL')],
    cause,
  });
}
