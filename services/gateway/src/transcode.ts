import type { IncomingMessage, ServerResponse } from 'node:http';
import { fromBinary, toBinary, toJson, type Registry } from '@bufbuild/protobuf';
import { Metadata, status } from '@grpc/grpc-js';
import { CHANNEL_HEADER, CHANNEL_PROOF_HEADER } from '@engram/grpc-kit';
import { hasBody, isJsonContentType, readBody } from './body-reader.ts';
import { errorFromGrpc, writeError } from './error-writer.ts';
import { GatewayError, internalError, unsupportedMediaType, upstreamUnavailable } from './gateway-error.ts';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from './idempotency-key.ts';
import type { StatusFieldRenderer } from './item-status.ts';
import { relayNdjson } from './ndjson-stream.ts';
import { bindRequest } from './request-binding.ts';
import { isReadOnly, type Route } from './route-table.ts';
import type { Upstreams } from './upstream.ts';

/** What the transcoder needs; built once by createGateway. */
export interface TranscodeDeps {
  readonly registry: Registry;
  readonly pool: Upstreams;
  readonly unaryTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** Renders google.rpc.Status fields of responses (refused batch items) as the error body's object. */
  readonly statusFields: StatusFieldRenderer;
  /**
   * channelProof(ENGRAM_INTERNAL_TOKEN): sent with x-engram-channel so that the services honour the
   * channel (a direct gRPC caller cannot forge it). Absent: the services record channel grpc.
   */
  readonly channelProof?: string | undefined;
}

export interface RouteCall {
  readonly route: Route;
  readonly variables: ReadonlyMap<string, string>;
  readonly query: URLSearchParams;
  readonly requestId: string;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The provenance channel of a REST request: `mcp` when the client declares `x-engram-channel: mcp`
 * (the MCP server's tool calls do), else `rest`. A label, not a credential: declaring it grants
 * nothing and only relabels the request; any other value is ignored (docs/decisions.md).
 */
function channelOf(req: IncomingMessage): 'rest' | 'mcp' {
  return req.headers['x-engram-channel'] === 'mcp' ? 'mcp' : 'rest';
}

/**
 * The metadata every upstream call carries: the caller's key, the request id, the channel, and the
 * Idempotency-Key when the request has one.
 */
function upstreamMetadata(
  req: IncomingMessage,
  requestId: string,
  proof: string | undefined,
  idempotencyKey?: string,
): Metadata {
  const md = new Metadata();
  const auth = req.headers.authorization;
  // A value grpc-js cannot carry is dropped; the upstream then answers UNAUTHENTICATED.
  if (auth !== undefined && PRINTABLE_ASCII.test(auth)) md.set('authorization', auth);
  md.set('x-request-id', requestId);
  md.set(CHANNEL_HEADER, channelOf(req));
  if (proof !== undefined) md.set(CHANNEL_PROOF_HEADER, proof);
  if (idempotencyKey !== undefined) md.set(IDEMPOTENCY_KEY_HEADER, idempotencyKey);
  return md;
}

/**
 * Serves one matched route: reads and binds the request, calls the RPC and writes the JSON answer
 * (or the NDJSON stream). Client mistakes throw 4xx GatewayErrors; upstream failures are mapped
 * by the error table. Resolves when the response is complete.
 */
export async function transcode(
  deps: TranscodeDeps,
  req: IncomingMessage,
  res: ServerResponse,
  call: RouteCall,
): Promise<void> {
  const { route } = call;
  const idempotencyKey = idempotencyKeyOf(req, route.httpMethod);
  let body: Buffer | undefined;
  if (route.body !== '') {
    if (hasBody(req) && !isJsonContentType(req.headers['content-type'])) throw unsupportedMediaType();
    body = await readBody(req, deps.maxBodyBytes);
  }
  const message = bindRequest({ route, variables: call.variables, query: call.query, body }, deps.registry);
  const bytes = toBinary(route.method.input, message);
  const service = route.service.typeName;
  if (!deps.pool.hasService(service)) throw upstreamUnavailable();
  const metadata = upstreamMetadata(req, call.requestId, deps.channelProof, idempotencyKey);
  const render = (raw: Buffer) => {
    const message = fromBinary(route.method.output, raw);
    const json = toJson(route.method.output, message, {
      registry: deps.registry,
      useProtoFieldName: true,
      alwaysEmitImplicit: true,
    });
    deps.statusFields.render(route.method.output, message, json);
    const picked =
      route.responseField === undefined ? json : (json as Record<string, unknown>)[route.responseField.name];
    return JSON.stringify(picked ?? null);
  };
  const toError = (err: unknown) =>
    err instanceof GatewayError
      ? err
      : isGrpcError(err)
        ? errorFromGrpc(err, deps.registry)
        : internalError(err);

  if (route.serverStreaming) {
    const stream = deps.pool.serverStream(service, route.grpcPath, bytes, metadata);
    await relayNdjson(stream, res, { encode: render, toError, writeError: (e) => writeError(res, e) });
    return;
  }

  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const deadline = new Date(Date.now() + deps.unaryTimeoutMs);
  const send = () =>
    deps.pool.unary(service, route.grpcPath, bytes, { metadata, deadline, signal: abort.signal });
  let raw: Buffer;
  try {
    try {
      raw = await send();
    } catch (err) {
      // Sent again once when no Engram process answered (the connection failed, e.g. a replica that
      // died before the channel saw it, or while its answer was on the wire, after grpc-js had
      // committed the call and would not retry it): round robin then picks a live replica. Safe for
      // a read, and for a write carrying an idempotency key (the upstream runs it once per key).
      const resendable = idempotencyKey !== undefined || isReadOnly(route);
      if (!resendable || abort.signal.aborted || !isTransportFailure(err)) throw err;
      raw = await send();
    }
  } catch (err) {
    throw toError(err);
  } finally {
    res.off('close', onClose);
  }
  let payload: string;
  try {
    payload = render(raw);
  } catch (err) {
    throw internalError(err);
  }
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(payload));
  res.end(payload);
}

/**
 * UNAVAILABLE that no Engram handler sent: every status an Engram service returns carries
 * google.rpc.Status details (grpc-status-details-bin), one raised by the client's transport does not.
 */
function isTransportFailure(err: unknown): boolean {
  return (
    isGrpcError(err) &&
    err.code === status.UNAVAILABLE &&
    (err.metadata?.get('grpc-status-details-bin').length ?? 0) === 0
  );
}

function isGrpcError(err: unknown): err is { code: status; details?: string; metadata?: Metadata } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number';
}
