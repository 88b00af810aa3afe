import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';

/** The channel the gateway declares for a call it forwards (rest or mcp). */
export const CHANNEL_HEADER = 'x-engram-channel';
/** Proves that the declaration comes from the gateway (channelProof). */
export const CHANNEL_PROOF_HEADER = 'x-engram-channel-proof';

export type Channel = 'rest' | 'mcp' | 'grpc';

/**
 * What the gateway sends with x-engram-channel to prove it is the gateway: an HMAC of a fixed label
 * under ENGRAM_INTERNAL_TOKEN. Deriving it (instead of sending the token itself) keeps the token off
 * public calls: a call carrying the token is an internal call, exempt from rate limits and admitted
 * to internal methods, and a leaked proof (a logged header) does not leak the token.
 */
export function channelProof(internalToken: string): string {
  return createHmac('sha256', internalToken).update('engram provenance channel v1').digest('base64url');
}

/**
 * The provenance channel of a call: the declared rest or mcp only when the call proves it comes from
 * the gateway (`proof`: channelProof of this process's internal token); anything else, a direct gRPC
 * caller declaring rest or mcp included, is `grpc`. No proof configured: always grpc.
 */
export function channelOf(metadata: Metadata, proof: string | undefined): Channel {
  const declared = metadata.get(CHANNEL_HEADER)[0];
  if (declared !== 'rest' && declared !== 'mcp') return 'grpc';
  const presented = metadata.get(CHANNEL_PROOF_HEADER)[0];
  if (proof === undefined || typeof presented !== 'string') return 'grpc';
  const a = Buffer.from(presented);
  const b = Buffer.from(proof);
  return a.length === b.length && timingSafeEqual(a, b) ? declared : 'grpc';
}
