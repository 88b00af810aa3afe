import { CallScope } from './call-scope.ts';
import { EngramError, errorFromAnswer, errorFromBody, invalidResponse, localError } from './errors.ts';
import { newIdempotencyKey } from './idempotency.ts';
import { InvalidNdjsonError, ndjsonLines } from './ndjson.ts';
import { resolveRetry, type CallOptions, type FetchFunction, type RetryOptions } from './options.ts';
import { buildHttpRequest } from './request.ts';
import { retryableAnswer, retryWaitMs, sleep } from './retry.ts';
import type { RouteSpec } from './route-spec.ts';

export interface TransportConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: FetchFunction;
  readonly timeoutMs: number;
  readonly retry: RetryOptions | false | undefined;
  readonly userAgent: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A successful answer (its body read, or still to be read) and the scope that still governs it. */
interface Opened {
  readonly response: Response;
  /** The body, when the call asked for it to be read. */
  readonly text: string | undefined;
  readonly scope: CallScope;
  readonly attempts: number;
  readonly requestId: string | undefined;
}

/**
 * HTTP for the generated methods: builds the request from the route, sends it with retries
 * (429 and 503 answers and network failures, with backoff and Retry-After), and turns every
 * failure into an EngramError.
 */
export class Transport {
  constructor(private readonly config: TransportConfig) {}

  async unary<T>(route: RouteSpec, request: object, options: CallOptions = {}): Promise<T> {
    const { response, text, scope, requestId } = await this.open(route, request, options, true);
    scope.dispose();
    return parseJson(text ?? '', response.status, requestId) as T;
  }

  /**
   * The rows of a streaming route. The call starts when iteration starts; retries happen only
   * before the first row (a stream is never replayed). An error line ends the stream with its
   * EngramError.
   */
  async *stream<T>(
    route: RouteSpec,
    request: object,
    options: CallOptions = {},
  ): AsyncGenerator<T, void, undefined> {
    const { response, scope, attempts, requestId } = await this.open(route, request, options, false);
    scope.clearDeadline();
    try {
      if (response.body === null) return;
      for await (const line of ndjsonLines(response.body)) {
        const row = parseJson(line, response.status, requestId);
        const error = streamError(row);
        if (error !== undefined) throw errorFromBody(error, response.status, requestId, undefined, attempts);
        yield row as T;
      }
    } catch (err) {
      throw this.failure(err, scope, attempts, requestId);
    } finally {
      scope.dispose();
    }
  }

  /**
   * Sends the call until a 2xx answer arrives, retrying what may be retried. With `readAll`, a
   * failure while the success body is read is retried too. The returned scope must be disposed.
   */
  private async open(
    route: RouteSpec,
    request: object,
    options: CallOptions,
    readAll: boolean,
  ): Promise<Opened> {
    const http = buildHttpRequest(route, request);
    const url = this.config.baseUrl + http.pathAndQuery;
    const headers = this.headersFor(route, http.body !== undefined, options);
    const policy = resolveRetry(this.config.retry, options.retry);
    const scope = new CallScope(options.timeoutMs ?? this.config.timeoutMs, options.signal);
    const requestId = options.requestId;
    let attempts = 0;
    let last: EngramError | undefined;
    try {
      for (;;) {
        const stopped = scope.stoppedError(attempts, last?.requestId ?? requestId);
        if (stopped !== undefined) throw stopped;
        attempts++;
        let failure: EngramError;
        try {
          const response = await this.config.fetch(url, {
            method: route.method,
            headers,
            body: http.body,
            signal: scope.signal,
          });
          const answeredId = response.headers.get('x-request-id') ?? requestId;
          if (response.ok) {
            // Read here so that a connection lost mid-body is retried like one lost before it.
            const text = readAll ? await response.text() : undefined;
            return { response, text, scope, attempts, requestId: answeredId };
          }
          const text = await response.text().catch(() => undefined);
          const stoppedWhileReading = scope.stoppedError(attempts, requestId);
          if (stoppedWhileReading !== undefined) throw stoppedWhileReading;
          failure = errorFromAnswer(
            { status: response.status, statusText: response.statusText, headers: response.headers, text },
            attempts,
          );
          if (!retryableAnswer(failure)) throw failure;
        } catch (err) {
          if (err instanceof EngramError) throw err;
          failure = this.failure(err, scope, attempts, last?.requestId ?? requestId);
          // A request lost in transit may have been applied: only a read, or a write the server
          // records by Idempotency-Key, is sent again.
          if (failure.code !== 'UNAVAILABLE' || !(route.readOnly || route.idempotencyKey)) throw failure;
        }
        last = failure;
        if (attempts >= policy.maxAttempts) throw failure;
        const wait = retryWaitMs(attempts, policy, failure.retryAfterSeconds);
        // A wait that would outlast the time budget is not started: the caller learns why now.
        if (wait === undefined || wait >= scope.remainingMs()) throw failure;
        try {
          await sleep(wait, scope.signal);
        } catch {
          throw scope.stoppedError(attempts, failure.requestId) ?? failure;
        }
      }
    } catch (err) {
      scope.dispose();
      throw err;
    }
  }

  /** The EngramError of an exception: abort and timeout first, then a network failure. */
  private failure(
    err: unknown,
    scope: CallScope,
    attempts: number,
    requestId: string | undefined,
  ): EngramError {
    if (err instanceof EngramError) return err;
    const stopped = scope.stoppedError(attempts, requestId);
    if (stopped !== undefined) return stopped;
    if (err instanceof InvalidNdjsonError) return invalidResponse(200, err.message, requestId);
    return localError('UNAVAILABLE', `network error: ${describe(err)}`, { attempts, cause: err, requestId });
  }

  private headersFor(route: RouteSpec, hasBody: boolean, options: CallOptions): Record<string, string> {
    const headers: Record<string, string> = {
      ...this.config.headers,
      ...options.headers,
      authorization: `Bearer ${this.config.apiKey}`,
      accept: route.streaming ? 'application/x-ndjson' : 'application/json',
      'user-agent': this.config.userAgent,
    };
    if (hasBody) headers['content-type'] = 'application/json';
    // One key per call, the same on every attempt: a retried write is applied once.
    if (route.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey ?? newIdempotencyKey();
    if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
    return headers;
  }
}

function parseJson(text: string, status: number, requestId: string | undefined): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidResponse(status, 'the answer is not valid JSON', requestId);
  }
}

/** The `error` object of a stream's error line (`{"error": {...}}`), else undefined. */
function streamError(row: unknown): Record<string, unknown> | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return undefined;
  const keys = Object.keys(row);
  const error = (row as { error?: unknown }).error;
  if (keys.length !== 1 || typeof error !== 'object' || error === null) return undefined;
  return error as Record<string, unknown>;
}

/** A short description of a network failure: the message and the system error code, never a body. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code === undefined ? err.message : `${err.message} (${code})`;
}
