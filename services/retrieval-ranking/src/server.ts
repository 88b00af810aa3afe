import type { Principal } from '@engram/auth';
import type { Embedder } from '@engram/embeddings';
import { bindService, type ServiceRegistration } from '@engram/grpc-kit';
import { VerifiedReader } from '@engram/memories';
import type { Peers, Platform } from '@engram/platform';
import { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import { retrievalHandlers } from './handlers/retrieval-handlers.ts';
import { KnexPlaybookRepository } from './storage/playbook-repository.ts';
import { KnexSearchRepository } from './storage/search-repository.ts';

export const RETRIEVAL_SERVICE_NAMES = ['engram.retrieval.v1.RetrievalService'] as const;

export function retrievalServices(
  platform: Platform,
  embedder: Embedder,
  _peers: Peers,
): ServiceRegistration[] {
  const { config } = platform;
  const reader = new VerifiedReader(
    {
      key: platform.secrets.integrityKey,
      mode: config.integrityReadMode,
      requireSigned: config.integrityRequireSigned,
    },
    platform.db.knex,
    platform.notifyCommitted,
    platform.metrics,
  );
  const deps = {
    search: new KnexSearchRepository(platform.db),
    embedder,
    reader,
    playbook: new KnexPlaybookRepository(platform.db),
    ranking: {
      enabled: config.enableTrustWeightedRanking,
      weights: {
        similarity: config.rankingWSimilarity,
        trust: config.rankingWTrust,
        effectiveness: config.rankingWEffectiveness,
        recency: config.rankingWRecency,
        provenance: config.rankingWProvenance,
      },
    },
  };
  const logger = platform.logger.child({ component: 'retrieval-ranking' });
  const describe = (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId });
  return [
    {
      definition: RetrievalServiceService,
      implementation: bindService(RetrievalServiceService, retrievalHandlers(deps), {
        authenticate: platform.authenticator.authenticate,
        logger,
        describe,
        metrics: platform.metrics,
        idempotency: platform.idempotency,
        internalToken: platform.secrets.internalToken,
      }),
    },
  ];
}
