import { randomUUID } from 'node:crypto';
import {
  status as Status,
  type Metadata,
  type MethodDefinition,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { UnimplementedError } from '@engram/errors';
import { runWithRequestContext, type Logger } from '@engram/logger';
import { observeRpc, traceGrpcServerCall, type EngramMetrics, type RpcType } from '@engram/telemetry';
import { channelOf, channelProof } from './channel-proof.ts';
import { dataExceptionOf } from './data-exception.ts';
import { toStatus } from './status-details.ts';
import { idempotencyKeyOf, runIdempotent } from './idempotency/idempotent-call.ts';
import type { IdempotencyStore } from './idempotency/store.ts';
import { isIdempotentWrite } from './idempotency/write-methods.ts';

/** What every handler receives besides the request. */
export interface CallContext<P> {
  readonly principal: P;
  readonly requestId: string;
  /** rest (through the gateway), mcp (an MCP tool, through the gateway) or grpc (a direct caller). */
  readonly channel: 'rest' | 'mcp' | 'grpc';
  /** Incoming metadata; forward it with `forwardMetadata` when calling another service. */
  readonly metadata: Metadata;
  /** Aborted when the client cancels or the deadline passes. */
  readonly signal: AbortSignal;
  /** e.g. /engram.memory.v1.MemoryStoreService/GetMemory */
  readonly method: string;
}

export type UnaryHandler<Req, Res, P> = (request: Req, ctx: CallContext<P>) => Promise<Res>;
export type StreamHandler<Req, Res, P> = (request: Req, ctx: CallContext<P>) => AsyncIterable<Res>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMethod = MethodDefinition<any, any>;
type Definition = Record<string, AnyMethod>;

export type HandlersOf<D extends Definition, P> = {
  [K in keyof D]: D[K] extends MethodDefinition<infer Req, infer Res>
    ? D[K]['responseStream'] extends true
      ? StreamHandler<Req, Res, P>
      : UnaryHandler<Req, Res, P>
    : never;
};

export interface BindOptions<P> {
  /**
   * Admits the caller: resolves it from metadata (throws UnauthenticatedError or another domain
   * error) and may refuse it afterwards, e.g. RateLimitedError. It receives the decoded request so
   * that admission can see which agent the request acts as (the agent_id field).
   */
  readonly authenticate: (metadata: Metadata, method: string, request: unknown) => Promise<P>;
  readonly logger: Logger;
  /**
   * ENGRAM_INTERNAL_TOKEN: the channel the gateway declares (rest, mcp) is honoured only with its
   * proof under this token (channel-proof.ts); without it every call's channel is grpc.
   */
  readonly internalToken?: string | undefined;
  /** Called with each principal once authenticated, to label the request context. */
  readonly describe?: (principal: P) => { projectId?: string; keyId?: string };
  /** Where every call is counted and timed (grpc_server_*); the process's registry. None when absent. */
  readonly metrics?: EngramMetrics;
  /**
   * Where write RPCs record Idempotency-Keys (idempotency-key metadata; docs/decisions.md). Without
   * it the metadata is ignored. Needs `describe`: a record is scoped by project and API key.
   */
  readonly idempotency?: IdempotencyStore;
}

function requestIdOf(metadata: Metadata): string {
  const v = metadata.get('x-request-id')[0];
  return typeof v === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : randomUUID();
}

/**
 * Turns typed promise/async-iterable handlers into a grpc-js implementation: request id and logging
 * context, authentication of every call, error mapping to status with rich details, cancellation.
 * Methods without a handler answer UNIMPLEMENTED after authentication.
 */
export function bindService<D extends Definition, P>(
  definition: D,
  handlers: Partial<HandlersOf<D, P>>,
  opts: BindOptions<P>,
): UntypedServiceImplementation {
  if (opts.idempotency && !opts.describe) throw new Error('bindService: idempotency needs describe');
  const impl: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler: unknown = handlers[name];
    if (method.requestStream) throw new Error(`client streaming is not supported (${method.path})`);
    impl[name] = method.responseStream
      ? streamingCall(method.path, handler as StreamHandler<unknown, unknown, P> | undefined, opts)
      : unaryCall(method, handler as UnaryHandler<unknown, unknown, P> | undefined, opts);
  }
  return impl;
}

async function prepare<P>(
  path: string,
  metadata: Metadata,
  request: unknown,
  opts: BindOptions<P>,
  signal: AbortSignal,
  proof: string | undefined,
): Promise<CallContext<P>> {
  const principal = await opts.authenticate(metadata, path, request);
  return {
    principal,
    requestId: requestIdOf(metadata),
    channel: channelOf(metadata, proof),
    metadata,
    signal,
    method: path,
  };
}

function logOutcome(logger: Logger, path: string, started: number, err?: unknown) {
  const ms = Math.round((performance.now() - started) * 100) / 100;
  if (err === undefined) {
    logger.info({ method: path, code: 'OK', duration_ms: ms }, 'rpc');
    return;
  }
  const st = toStatus(err);
  const entry = { method: path, code: Status[st.code], duration_ms: ms };
  const sqlstate = dataExceptionOf(err);
  if (st.code === Status.INTERNAL || st.code === Status.UNKNOWN) {
    logger.error(
      {
        ...entry,
        err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : typeof err,
      },
      'rpc failed',
    );
  } else if (sqlstate !== undefined) {
    // A value the database refused got past validation: a 400 for the client, a missing check for
    // us. Only the SQLSTATE: the database's message quotes the value.
    logger.warn({ ...entry, sqlstate }, 'rpc refused by the database');
  } else {
    logger.info(entry, 'rpc');
  }
}

/**
 * The part every call shares: abort on cancel, request context, authentication, the UNIMPLEMENTED
 * answer for a missing handler, and one log line with the outcome. `body` does the method's work.
 */
function invoke<P, T>(
  path: string,
  type: RpcType,
  call: { metadata: Metadata; request: unknown; on(event: 'cancelled', fn: () => void): unknown },
  present: boolean,
  opts: BindOptions<P>,
  body: (ctx: CallContext<P>, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const rpc = opts.metrics && observeRpc(opts.metrics, path, type);
  const abort = new AbortController();
  call.on('cancelled', () => abort.abort());
  const requestId = requestIdOf(call.metadata);
  const run = async () => {
    try {
      const ctx = await prepare(
        path,
        call.metadata,
        call.request,
        opts,
        abort.signal,
        proofOf(opts.internalToken),
      );
      const labels = opts.describe?.(ctx.principal) ?? {};
      const res = await runWithRequestContext({ requestId, ...labels }, () => {
        if (!present)
          throw new UnimplementedError(`${path.slice(path.lastIndexOf('/') + 1)} is not implemented yet`);
        return body(ctx, abort.signal);
      });
      logOutcome(opts.logger, path, started);
      rpc?.end(Status.OK);
      return res;
    } catch (err) {
      logOutcome(opts.logger, path, started, err);
      rpc?.end(toStatus(err).code);
      throw err;
    }
  };
  return traceGrpcServerCall(path, call.metadata, statusCodeOf, () =>
    runWithRequestContext({ requestId }, run),
  );
}

const statusCodeOf = (err: unknown): number => toStatus(err).code;

const proofs = new Map<string, string>();
/** The channel proof of an internal token (computed once per token). */
function proofOf(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  let proof = proofs.get(token);
  if (proof === undefined) {
    proof = channelProof(token);
    proofs.set(token, proof);
  }
  return proof;
}

function unaryCall<P>(
  method: AnyMethod,
  handler: UnaryHandler<unknown, unknown, P> | undefined,
  opts: BindOptions<P>,
) {
  const { path } = method;
  const store = opts.idempotency && isIdempotentWrite(path) ? opts.idempotency : undefined;
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    invoke(path, 'unary', call, handler !== undefined, opts, (ctx) => {
      const key = store && idempotencyKeyOf(call.metadata);
      if (store === undefined || key === undefined) return handler!(call.request, ctx);
      const labels = opts.describe?.(ctx.principal) ?? {};
      return runIdempotent({
        store,
        scope: { projectId: labels.projectId ?? '', keyId: labels.keyId ?? '', key },
        method,
        request: call.request,
        logger: opts.logger,
        run: () => handler!(call.request, ctx),
      });
    }).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toStatus(err), null),
    );
  };
}

function streamingCall<P>(
  path: string,
  handler: StreamHandler<unknown, unknown, P> | undefined,
  opts: BindOptions<P>,
) {
  return (call: ServerWritableStream<unknown, unknown>) => {
    invoke(path, 'server_stream', call, handler !== undefined, opts, async (ctx, signal) => {
      for await (const item of handler!(call.request, ctx)) {
        if (signal.aborted) return;
        if (!call.write(item)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              call.off('drain', done);
              call.off('cancelled', done);
              resolve();
            };
            call.on('drain', done);
            call.on('cancelled', done);
          });
        }
      }
    }).then(
      () => call.end(),
      (err: unknown) => call.emit('error', toStatus(err)),
    );
  };
}
