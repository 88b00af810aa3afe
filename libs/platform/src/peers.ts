import type { EngramConfig } from '@engram/config';

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
