import { parseDurationSeconds, parseRetryAfter } from './retry-after.ts';

/** One invalid field of a request, from the error's google.rpc.BadRequest detail. */
export interface ErrorFieldViolation {
  /** The field path, e.g. "content" or "items[2].agent_id"; "" for the body as a whole. */
  readonly field: string;
  readonly description: string;
  /** Machine-readable, e.g. REQUIRED or INVALID_VALUE, when the server gives one. */
  readonly reason?: string;
}

export interface EngramErrorInit {
  readonly code: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  readonly fieldViolations?: readonly ErrorFieldViolation[];
  readonly retryAfterSeconds?: number;
  readonly requestId?: string;
  readonly details?: readonly Record<string, unknown>[];
  readonly detections?: readonly Record<string, unknown>[];
  readonly attempts?: number;
  readonly cause?: unknown;
}

/**
 * Every failed call rejects with an EngramError.
 *
 * Answers of the gateway carry its error body: `code` is the canonical gRPC code name
 * (INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED, ...), `status` the HTTP status and `reason` the
 * machine-readable reason (VALIDATION_FAILED, RATE_LIMITED, SECURITY_REJECTED, ...).
 *
 * Failures without an answer have `status` 0:
 * - code UNAVAILABLE, reason NETWORK_ERROR: the connection failed (after the retries);
 * - code DEADLINE_EXCEEDED, reason TIMEOUT: the call's timeoutMs ran out;
 * - code CANCELLED, reason ABORTED: the caller's AbortSignal fired (`cause` is its reason);
 * - code INVALID_ARGUMENT, reason VALIDATION_FAILED: the client refused the request before sending
 *   it (a missing path parameter, a bad option), with fieldViolations.
 * An answer that is not the gateway's (a proxy's HTML page, a body that is not JSON) has the HTTP
 * status, a code derived from it and reason INVALID_RESPONSE.
 */
export class EngramError extends Error {
  override readonly name = 'EngramError';
  /** Canonical gRPC code name, e.g. INVALID_ARGUMENT. */
  readonly code: string;
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** UPPER_SNAKE_CASE machine-readable reason, e.g. VALIDATION_FAILED. */
  readonly reason: string;
  readonly fieldViolations: readonly ErrorFieldViolation[];
  /** Seconds the server asked the client to wait (Retry-After, or the RetryInfo detail). */
  readonly retryAfterSeconds: number | undefined;
  /** The gateway's x-request-id of the (last) answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The error body's details, as sent (google.rpc ErrorInfo, BadRequest, RetryInfo, ...). */
  readonly details: readonly Record<string, unknown>[];
  /** Content-security detections of a SECURITY_REJECTED write. */
  readonly detections: readonly Record<string, unknown>[];
  /** How many attempts the call made before failing (0 when none was sent). */
  readonly attempts: number;

  constructor(init: EngramErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.reason = init.reason;
    this.fieldViolations = init.fieldViolations ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.detections = init.detections ?? [];
    this.attempts = init.attempts ?? 0;
  }
}

const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/** The code of an answer whose body is not the gateway's, from its HTTP status. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  422: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function fieldViolationsOf(details: readonly Record<string, unknown>[]): ErrorFieldViolation[] {
  const out: ErrorFieldViolation[] = [];
  for (const d of details) {
    if (d['@type'] !== BAD_REQUEST_TYPE) continue;
    for (const v of records(d.field_violations ?? d.fieldViolations)) {
      const reason = typeof v.reason === 'string' && v.reason !== '' ? v.reason : undefined;
      out.push({
        field: typeof v.field === 'string' ? v.field : '',
        description: typeof v.description === 'string' ? v.description : '',
        ...(reason === undefined ? {} : { reason }),
      });
    }
  }
  return out;
}

function retryInfoSeconds(details: readonly Record<string, unknown>[]): number | undefined {
  const info = details.find((d) => d['@type'] === RETRY_INFO_TYPE);
  return info === undefined ? undefined : parseDurationSeconds(info.retry_delay ?? info.retryDelay);
}

/** What the client knows of an HTTP answer when it turns it into an error. */
export interface ErrorAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  /** The body text, or undefined when it could not be read. */
  readonly text: string | undefined;
}

/**
 * The EngramError of an error answer: the gateway's body `{"error": {...}}` when present, else a
 * generic error from the HTTP status (the body of a foreign answer is never copied into it).
 */
export function errorFromAnswer(answer: ErrorAnswer, attempts: number): EngramError {
  const requestId = answer.headers.get('x-request-id') ?? undefined;
  const headerRetry = parseRetryAfter(answer.headers.get('retry-after'));
  const body = parseErrorBody(answer.text);
  if (body === undefined) {
    const code = CODE_BY_STATUS[answer.status] ?? (answer.status >= 500 ? 'INTERNAL' : 'UNKNOWN');
    const label = answer.statusText === '' ? '' : ` ${answer.statusText}`;
    return new EngramError({
      code,
      status: answer.status,
      reason: 'INVALID_RESPONSE',
      message: `HTTP ${answer.status}${label} without an Engram error body`,
      retryAfterSeconds: headerRetry,
      requestId,
      attempts,
    });
  }
  return errorFromBody(body, answer.status, requestId, headerRetry, attempts);
}

/** The `error` object of a gateway error body (an HTTP error answer, or the last line of a stream). */
export function errorFromBody(
  error: Record<string, unknown>,
  httpStatus: number,
  requestId: string | undefined,
  headerRetry: number | undefined,
  attempts: number,
): EngramError {
  const details = records(error.details);
  const status = typeof error.status === 'number' && httpStatus === 200 ? error.status : httpStatus;
  return new EngramError({
    code: typeof error.code === 'string' ? error.code : (CODE_BY_STATUS[status] ?? 'UNKNOWN'),
    status,
    reason: typeof error.reason === 'string' ? error.reason : 'UNKNOWN',
    message: typeof error.message === 'string' ? error.message : `HTTP ${status}`,
    fieldViolations: fieldViolationsOf(details),
    retryAfterSeconds: headerRetry ?? retryInfoSeconds(details),
    requestId,
    details,
    detections: records(error.detections),
    attempts,
  });
}

/** The `error` object when the text is a gateway error body, else undefined. */
export function parseErrorBody(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
}

/** A failure the client detects without an HTTP answer (status 0). */
export function localError(
  code: 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'CANCELLED' | 'INVALID_ARGUMENT',
  message: string,
  extra: {
    attempts?: number;
    cause?: unknown;
    requestId?: string;
    fieldViolations?: ErrorFieldViolation[];
  } = {},
): EngramError {
  const reason = {
    UNAVAILABLE: 'NETWORK_ERROR',
    DEADLINE_EXCEEDED: 'TIMEOUT',
    CANCELLED: 'ABORTED',
    INVALID_ARGUMENT: 'VALIDATION_FAILED',
  }[code];
  return new EngramError({ code, status: 0, reason, message, ...extra });
}

/** An answer the client cannot read as the gateway's (a 200 whose body is not JSON, say). */
export function invalidResponse(status: number, message: string, requestId: string | undefined): EngramError {
  return new EngramError({
    code: status >= 200 && status < 300 ? 'UNKNOWN' : (CODE_BY_STATUS[status] ?? 'UNKNOWN'),
    status,
    reason: 'INVALID_RESPONSE',
    message,
    requestId,
  });
}
