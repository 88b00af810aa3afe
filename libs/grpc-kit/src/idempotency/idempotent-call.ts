import { Metadata, status as Status, type MethodDefinition } from '@grpc/grpc-js';
import { AbortedError, ConflictError, InvalidArgumentError } from '@engram/errors';
import type { Logger } from '@engram/logger';
import { ErrorInfo } from '@engram/proto/google/rpc/error_details';
import { Status as RpcStatus } from '@engram/proto/google/rpc/status';
import { toStatus } from '../status-details.ts';
import { requestFingerprint } from './fingerprint.ts';
import type { IdempotencyScope, IdempotencyStore, StoredOutcome } from './store.ts';

/** The gRPC metadata key; the gateway forwards the HTTP header Idempotency-Key under it. */
export const IDEMPOTENCY_KEY_METADATA = 'idempotency-key';

/** 1 to 255 printable ASCII characters (the gateway checks the HTTP header the same way). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** How long a caller that met a request still in progress is asked to wait before retrying. */
export const IN_PROGRESS_RETRY_MS = 1_000;

const DETAILS_KEY = 'grpc-status-details-bin';

/**
 * The outcomes stored and replayed besides a response: client errors that the same request would
 * meet again. Transient ones (UNAVAILABLE, INTERNAL, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED,
 * CANCELLED, ABORTED, UNAUTHENTICATED, ...) are not: the claim is released so that a retry can succeed.
 */
const REPLAYED_CODES: ReadonlySet<Status> = new Set([
  Status.INVALID_ARGUMENT,
  Status.FAILED_PRECONDITION,
  Status.ALREADY_EXISTS,
  Status.NOT_FOUND,
  Status.PERMISSION_DENIED,
  Status.OUT_OF_RANGE,
  Status.UNIMPLEMENTED,
]);

/** Reasons of replayable codes that nevertheless ask the client to retry (a write race). */
const TRANSIENT_REASONS: ReadonlySet<string> = new Set(['DEDUPLICATION_RACE']);

/**
 * The Idempotency-Key of a call, undefined when it carries none. A malformed key (empty, longer than
 * 255, not printable ASCII, or sent twice) is INVALID_ARGUMENT naming the metadata key.
 */
export function idempotencyKeyOf(metadata: Metadata): string | undefined {
  const values = metadata.get(IDEMPOTENCY_KEY_METADATA);
  if (values.length === 0) return undefined;
  const [value] = values;
  if (values.length === 1 && typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  const description = 'must be one value of 1 to 255 printable ASCII characters';
  throw new InvalidArgumentError(`${IDEMPOTENCY_KEY_METADATA}: ${description}`, [
    { field: IDEMPOTENCY_KEY_METADATA, description, reason: 'INVALID_VALUE' },
  ]);
}

export interface IdempotentCall<Res> {
  readonly store: IdempotencyStore;
  readonly scope: IdempotencyScope;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly method: MethodDefinition<any, Res>;
  readonly request: unknown;
  readonly logger: Logger;
  /** Runs the handler. */
  readonly run: () => Promise<Res>;
}

/**
 * Runs a write at most once per key: the first call claims the key, runs and stores its outcome; a
 * repeat replays that outcome without running the handler; a repeat while the first still runs is
 * ABORTED IDEMPOTENCY_KEY_IN_PROGRESS (HTTP 409, with RetryInfo); the key with another request is
 * FAILED_PRECONDITION IDEMPOTENCY_KEY_REUSED (HTTP 422).
 */
export async function runIdempotent<Res>(call: IdempotentCall<Res>): Promise<Res> {
  const { method, logger } = call;
  const claim = await call.store.claim(call.scope, {
    method: method.path,
    fingerprint: requestFingerprint(method.path, call.request),
  });
  switch (claim.kind) {
    case 'replay':
      logger.info({ method: method.path, idempotency: 'replayed' }, 'idempotent replay');
      return replay(method, claim.outcome);
    case 'in_progress':
      throw new AbortedError(
        'a request with this Idempotency-Key is still in progress; retry it later',
        'IDEMPOTENCY_KEY_IN_PROGRESS',
        IN_PROGRESS_RETRY_MS,
      );
    case 'reused':
      throw new ConflictError(
        'this Idempotency-Key was already used with a different request',
        'IDEMPOTENCY_KEY_REUSED',
        'FAILED_PRECONDITION',
      );
  }
  const { lease } = claim;
  let response: Res;
  try {
    response = await call.run();
  } catch (err) {
    const outcome = replayableError(err);
    await settle(logger, method.path, outcome ? lease.complete(outcome) : lease.release());
    throw err;
  }
  let bytes: Buffer;
  try {
    bytes = method.responseSerialize(response);
  } catch (err) {
    await settle(logger, method.path, lease.release());
    throw err;
  }
  await settle(logger, method.path, lease.complete({ kind: 'response', response: bytes }));
  return response;
}

/** The stored form of an error when a repeat should meet it again; undefined for a transient one. */
function replayableError(err: unknown): StoredOutcome | undefined {
  const st = toStatus(err);
  if (!REPLAYED_CODES.has(st.code)) return undefined;
  const bin = st.metadata?.get(DETAILS_KEY)[0];
  const details = bin instanceof Buffer ? bin : undefined;
  if (details !== undefined && TRANSIENT_REASONS.has(errorInfoReason(details))) return undefined;
  return { kind: 'error', code: st.code, message: st.details ?? '', details };
}

/** ErrorInfo.reason of an encoded google.rpc.Status (also of errors relayed from another service). */
function errorInfoReason(bin: Buffer): string {
  try {
    for (const any of RpcStatus.decode(bin).details) {
      if (any.type_url.endsWith('/google.rpc.ErrorInfo')) return ErrorInfo.decode(any.value).reason;
    }
  } catch {
    // Undecodable details: no reason.
  }
  return '';
}

/** The stored answer, as the first call gave it. */
function replay<Res>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  method: MethodDefinition<any, Res>,
  outcome: StoredOutcome,
): Res {
  if (outcome.kind === 'response') return method.responseDeserialize(outcome.response);
  throw new ReplayedStatus(outcome);
}

/**
 * A stored error status thrown again: shaped like a grpc-js ServiceError, so toStatus passes its
 * code, message and details through unchanged.
 */
class ReplayedStatus extends Error {
  override readonly name = 'ReplayedStatus';
  readonly code: number;
  readonly details: string;
  readonly metadata = new Metadata();

  constructor(outcome: Extract<StoredOutcome, { kind: 'error' }>) {
    super(outcome.message);
    this.code = outcome.code;
    this.details = outcome.message;
    if (outcome.details !== undefined) this.metadata.set(DETAILS_KEY, outcome.details);
  }
}

/**
 * Waits for the record to be written. A failure is logged, not sent: the write itself is done and
 * its answer is the truth; a retry may then run it again once the claim goes stale.
 */
async function settle(logger: Logger, method: string, pending: Promise<void>): Promise<void> {
  try {
    await pending;
  } catch (err) {
    logger.warn(
      { method, err: err instanceof Error ? err.message : String(err) },
      'could not record the outcome of an idempotent request',
    );
  }
}
