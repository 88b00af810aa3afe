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
import { toStatus } from './status-details.ts';

/** What every handler receives besides the request. */
export interface CallContext<P> {
  readonly principal: P;
  readonly requestId: string;
  /** rest (through the gateway) or grpc (a direct caller). */
  readonly channel: 'rest' | 'grpc';
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
  /** Called with each principal once authenticated, to label the request context. */
  readonly describe?: (principal: P) => { projectId?: string; keyId?: string };
}

function requestIdOf(metadata: Metadata): string {
  const v = metadata.get('x-request-id')[0];
  return typeof v === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : randomUUID();
}

function channelOf(metadata: Metadata): 'rest' | 'grpc' {
  return metadata.get('x-engram-channel')[0] === 'rest' ? 'rest' : 'grpc';
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
  const impl: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler: unknown = handlers[name];
    if (method.requestStream) throw new Error(`client streaming is not supported (${method.path})`);
    impl[name] = method.responseStream
      ? streamingCall(method.path, handler as StreamHandler<unknown, unknown, P> | undefined, opts)
      : unaryCall(method.path, handler as UnaryHandler<unknown, unknown, P> | undefined, opts);
  }
  return impl;
}

async function prepare<P>(
  path: string,
  metadata: Metadata,
  request: unknown,
  opts: BindOptions<P>,
  signal: AbortSignal,
): Promise<CallContext<P>> {
  const principal = await opts.authenticate(metadata, path, request);
  return {
    principal,
    requestId: requestIdOf(metadata),
    channel: channelOf(metadata),
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
  if (st.code === Status.INTERNAL || st.code === Status.UNKNOWN) {
    logger.error(
      {
        ...entry,
        err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : typeof err,
      },
      'rpc failed',
    );
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
  call: { metadata: Metadata; request: unknown; on(event: 'cancelled', fn: () => void): unknown },
  present: boolean,
  opts: BindOptions<P>,
  body: (ctx: CallContext<P>, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const abort = new AbortController();
  call.on('cancelled', () => abort.abort());
  const requestId = requestIdOf(call.metadata);
  return runWithRequestContext({ requestId }, async () => {
    try {
      const ctx = await prepare(path, call.metadata, call.request, opts, abort.signal);
      const labels = opts.describe?.(ctx.principal) ?? {};
      const res = await runWithRequestContext({ requestId, ...labels }, () => {
        if (!present)
          throw new UnimplementedError(`${path.slice(path.lastIndexOf('/') + 1)} is not implemented yet`);
        return body(ctx, abort.signal);
      });
      logOutcome(opts.logger, path, started);
      return res;
    } catch (err) {
      logOutcome(opts.logger, path, started, err);
      throw err;
    }
  });
}

function unaryCall<P>(
  path: string,
  handler: UnaryHandler<unknown, unknown, P> | undefined,
  opts: BindOptions<P>,
) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    invoke(path, call, handler !== undefined, opts, (ctx) => handler!(call.request, ctx)).then(
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
    invoke(path, call, handler !== undefined, opts, async (ctx, signal) => {
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
