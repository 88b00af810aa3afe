import {
  InterceptingCall,
  status as GrpcStatus,
  type Interceptor,
  type Metadata,
  type StatusObject,
} from '@grpc/grpc-js';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { activeTracer } from './state.ts';

/** W3C trace context travels in gRPC metadata as `traceparent` / `tracestate`. */
const metadataSetter: TextMapSetter<Metadata> = {
  set: (md, key, value) => md.set(key, value),
};

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (md) => Object.keys(md.getMap()),
  get: (md, key) => {
    const v = md.get(key)[0];
    return typeof v === 'string' ? v : undefined;
  },
};

/** Codes a server span counts as its own failure (OpenTelemetry's gRPC conventions). */
const SERVER_ERROR_CODES: ReadonlySet<number> = new Set([
  GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DATA_LOSS,
]);

/** "/engram.memory.v1.MemoryStoreService/GetMemory" -> service and method. */
function splitPath(path: string): { service: string; method: string } {
  const slash = path.lastIndexOf('/');
  return { service: path.slice(path.startsWith('/') ? 1 : 0, slash), method: path.slice(slash + 1) };
}

function rpcAttributes(path: string) {
  const { service, method } = splitPath(path);
  return {
    name: `${service}/${method}`,
    attributes: { [ATTR.rpcSystem]: 'grpc', [ATTR.rpcService]: service, [ATTR.rpcMethod]: method },
  };
}

/**
 * Runs one incoming call inside a SERVER span that continues the caller's trace (the `traceparent`
 * of its metadata). `codeOf` maps what `run` threw to its gRPC status code. With tracing off this
 * is `run()`.
 */
export function traceGrpcServerCall<T>(
  path: string,
  metadata: Metadata,
  codeOf: (err: unknown) => number,
  run: () => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return run();
  const parent = propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  const { name, attributes } = rpcAttributes(path);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return context.with(trace.setSpan(parent, span), run).then(
    (result) => {
      span.setAttribute(ATTR.rpcGrpcStatusCode, GrpcStatus.OK);
      span.end();
      return result;
    },
    (err: unknown) => {
      const code = codeOf(err);
      span.setAttribute(ATTR.rpcGrpcStatusCode, code);
      span.setAttribute(ATTR.errorType, GrpcStatus[code] ?? String(code));
      if (SERVER_ERROR_CODES.has(code)) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw err;
    },
  );
}

/** The CLIENT span of an outgoing call made while a span is active; undefined outside any trace. */
function startClientSpan(path: string): { span: Span; parent: Context } | undefined {
  const tracer = activeTracer();
  const parent = context.active();
  if (tracer === undefined || trace.getSpan(parent) === undefined) return undefined;
  const { name, attributes } = rpcAttributes(path);
  return { span: tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent), parent };
}

function endClientSpan(span: Span, code: GrpcStatus): void {
  span.setAttribute(ATTR.rpcGrpcStatusCode, code);
  if (code !== GrpcStatus.OK) {
    span.setAttribute(ATTR.errorType, GrpcStatus[code] ?? String(code));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * A CLIENT span around each outgoing call made while a span is active, whose context it writes into
 * the call's metadata. Calls made outside any trace (readiness probes) pass through untouched.
 */
const tracingInterceptor: Interceptor = (options, nextCall) => {
  const started = startClientSpan(options.method_definition.path);
  if (started === undefined) return new InterceptingCall(nextCall(options));
  const { span, parent } = started;
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      propagation.inject(trace.setSpan(parent, span), metadata, metadataSetter);
      next(metadata, {
        onReceiveStatus(status: StatusObject, nextStatus: (s: StatusObject) => void) {
          endClientSpan(span, status.code);
          nextStatus(status);
        },
      });
    },
  });
};

/**
 * The CLIENT span of a call that does not go through a grpc-js channel (the embedded suite calling a
 * handler in-process): the span the client interceptor would make, its context written into
 * `metadata` for the handler's server span to continue. Returns what ends it with the call's status
 * code; outside any trace (or with tracing off) nothing is recorded and `metadata` is left alone.
 */
export function startGrpcClientSpan(path: string, metadata: Metadata): (code: GrpcStatus) => void {
  const started = startClientSpan(path);
  if (started === undefined) return () => {};
  const { span, parent } = started;
  propagation.inject(trace.setSpan(parent, span), metadata, metadataSetter);
  let ended = false;
  return (code) => {
    if (ended) return;
    ended = true;
    endClientSpan(span, code);
  };
}

/**
 * The `interceptors` option of a gRPC client: the tracing interceptor while tracing is on, none
 * otherwise (a client made before tracing started, or with it off, pays nothing per call). Start
 * tracing before creating clients.
 */
export function grpcClientInterceptors(): Interceptor[] {
  return activeTracer() === undefined ? [] : [tracingInterceptor];
}
