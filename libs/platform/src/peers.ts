import type { EngramConfig } from '@engram/config';
import type { InProcessInvoker } from '@engram/grpc-kit';

/**
 * Where the other services are. Functions, because in embedded mode every service is on the one
 * server whose port is known only once it listens; distributed, they are the *_ADDR settings.
 */
export interface Peers {
  readonly ingestSecurity: () => string;
  readonly memoryStore: () => string;
  readonly retrievalRanking: () => string;
  readonly aceFeedback: () => string;
  readonly securityAdmin: () => string;
  /**
   * Embedded with EMBEDDED_IN_PROCESS: the handlers of this process's gRPC server, which the
   * services' clients call instead of dialling the addresses (available once the server is built).
   */
  readonly inProcess?: () => InProcessInvoker;
}

export function configuredPeers(config: EngramConfig): Peers {
  return {
    ingestSecurity: () => config.ingestSecurityAddr,
    memoryStore: () => config.memoryStoreAddr,
    retrievalRanking: () => config.retrievalRankingAddr,
    aceFeedback: () => config.aceFeedbackAddr,
    securityAdmin: () => config.securityAdminAddr,
  };
}

/** Every peer at one address (embedded mode). */
export function loopbackPeers(address: () => string): Peers {
  return {
    ingestSecurity: address,
    memoryStore: address,
    retrievalRanking: address,
    aceFeedback: address,
    securityAdmin: address,
  };
}

/**
 * Every peer in this process, its handlers called in-process (embedded, EMBEDDED_IN_PROCESS); the
 * address stays for what still dials it (external clients, readiness output).
 */
export function inProcessPeers(address: () => string, invoker: () => InProcessInvoker): Peers {
  return { ...loopbackPeers(address), inProcess: invoker };
}
