export { bindService } from './bind-service.ts';
export type { BindOptions, CallContext, HandlersOf, StreamHandler, UnaryHandler } from './bind-service.ts';
export { CHANNEL_HEADER, CHANNEL_PROOF_HEADER, channelOf, channelProof } from './channel-proof.ts';
export type { Channel } from './channel-proof.ts';
export {
  createClient,
  forwardMetadata,
  INTERNAL_TOKEN_HEADER,
  PEER_CALL_TIMEOUT_MS,
  unary,
} from './client.ts';
export { IDEMPOTENCY_KEY_METADATA, IN_PROGRESS_RETRY_MS } from './idempotency/idempotent-call.ts';
export { canonicalJson, requestFingerprint } from './idempotency/fingerprint.ts';
export type {
  IdempotencyClaim,
  IdempotencyLease,
  IdempotencyScope,
  IdempotencyStore,
  IdempotentRequest,
  StoredOutcome,
} from './idempotency/store.ts';
export { idempotentWriteMethods, isIdempotentWrite } from './idempotency/write-methods.ts';
export { HealthStatus, ServingStatus } from './health.ts';
export {
  InProcessClientStream,
  InProcessInvoker,
  InProcessServerStream,
  InProcessUnaryCall,
} from './in-process.ts';
export type { InProcessCallOptions } from './in-process.ts';
export { createGrpcServer, listen, shutdownServer } from './server.ts';
export type { ServiceRegistration } from './server.ts';
export {
  decodeStatusDetails,
  engramErrorOf,
  ERROR_DOMAIN,
  isServiceError,
  rpcStatusOf,
  toStatus,
} from './status-details.ts';
export { channelServiceConfig, NO_RETRY_PUSHBACK, READ_ATTEMPTS } from './service-config.ts';
export type { MethodName } from './service-config.ts';
