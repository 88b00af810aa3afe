import { credentials, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { grpcClientInterceptors } from '@engram/telemetry';
import { channelServiceConfig } from './service-config.ts';

export const INTERNAL_TOKEN_HEADER = 'x-engram-internal-token';

/** The deadline of a call from one service to another (`unary`'s default, and in-process calls'). */
export const PEER_CALL_TIMEOUT_MS = 30_000;

const CLIENT_OPTIONS = {
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
  'grpc.keepalive_time_ms': 60_000,
  // Round robin over every address of the target: the replicas of a service share the load.
  'grpc.service_config': channelServiceConfig(),
};

type ClientCtor<C> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => C;

/**
 * A client of a peer. While tracing is on, each call it makes is a CLIENT span whose W3C context
 * travels in the call's metadata, so the peer's server span joins the caller's trace.
 */
export function createClient<C extends Client>(ctor: ClientCtor<C>, address: string): C {
  return new ctor(address, credentials.createInsecure(), {
    ...CLIENT_OPTIONS,
    interceptors: grpcClientInterceptors(),
  });
}

/**
 * Metadata for a call made on behalf of the current caller: the caller's key and request id travel
 * on, plus the internal service token when the target method is internal. The Idempotency-Key does
 * not: the service the caller called holds its record (docs/decisions.md).
 */
export function forwardMetadata(incoming: Metadata, internalToken?: string): Metadata {
  const md = new Metadata();
  // The channel travels with the gateway's proof of it, so a write a service derives from the call
  // (a reflection, a delta) records the channel the caller came in by (channel-proof.ts).
  for (const key of ['authorization', 'x-request-id', 'x-engram-channel', 'x-engram-channel-proof']) {
    const v = incoming.get(key)[0];
    if (typeof v === 'string') md.set(key, v);
  }
  if (internalToken) md.set(INTERNAL_TOKEN_HEADER, internalToken);
  return md;
}

/** Calls a unary client method as a promise; UNAVAILABLE from the transport stays a ServiceError. */
export function unary<Req, Res>(
  fn: (
    req: Req,
    md: Metadata,
    opts: { deadline: Date },
    cb: (err: ServiceError | null, res: Res) => void,
  ) => unknown,
  req: Req,
  md: Metadata,
  timeoutMs = PEER_CALL_TIMEOUT_MS,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    fn(req, md, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
      if (err) reject(err);
      else resolve(res);
    });
  });
}
