import { Metadata } from '@grpc/grpc-js';
import { CHANNEL_HEADER, CHANNEL_PROOF_HEADER, forwardMetadata } from '@engram/grpc-kit';

/**
 * The caller's credentials as a service passes them on when it calls another one on the caller's
 * behalf: the key (the `authorization` value), the request id, and the channel with the gateway's
 * proof of it. A value built by the handler from the call's metadata, so domain code that hands the
 * caller to a port (a write through the pipeline) never sees gRPC metadata; only the client turns
 * it back into metadata (callerMetadata). Opaque to the domain: it authorizes with the Principal.
 */
export interface Caller {
  readonly authorization?: string | undefined;
  readonly requestId?: string | undefined;
  readonly channel?: string | undefined;
  readonly channelProof?: string | undefined;
}

const HEADERS = {
  authorization: 'authorization',
  requestId: 'x-request-id',
  channel: CHANNEL_HEADER,
  channelProof: CHANNEL_PROOF_HEADER,
} as const satisfies Record<keyof Caller, string>;

/** The Caller of an incoming call: what forwardMetadata would pass on, as plain strings. */
export function callerOf(incoming: Metadata): Caller {
  const caller: { -readonly [K in keyof Caller]: Caller[K] } = {};
  for (const [field, header] of Object.entries(HEADERS) as [keyof Caller, string][]) {
    const v = incoming.get(header)[0];
    if (typeof v === 'string') caller[field] = v;
  }
  return caller;
}

/** The metadata of a call made on the caller's behalf (forwardMetadata: plus the internal token). */
export function callerMetadata(caller: Caller, internalToken?: string): Metadata {
  const md = new Metadata();
  for (const [field, header] of Object.entries(HEADERS) as [keyof Caller, string][]) {
    const v = caller[field];
    if (v !== undefined) md.set(header, v);
  }
  return forwardMetadata(md, internalToken);
}
