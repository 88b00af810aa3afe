import type { Principal } from '@engram/auth';
import { bindService, type ServiceRegistration } from '@engram/grpc-kit';
import { VerifiedReader } from '@engram/memories';
import type { Peers, Platform } from '@engram/platform';
import { AceServiceService } from '@engram/proto/engram/ace/v1/ace';
import { contentPolicyOf, stage4Of } from '@engram/security-rules';
import { GrpcWritePipeline } from './clients/ingest-client.ts';
import { aceHandlers } from './handlers/ace-handlers.ts';
import { KnexConsolidationLog } from './storage/consolidation-log.ts';
import { KnexFeatureRepository } from './storage/feature-repository.ts';
import { KnexMemoryLookup } from './storage/memory-lookup.ts';
import { KnexRejectionLog } from './storage/rejection-log.ts';
import { KnexRunRepository } from './storage/run-repository.ts';
import { KnexSessionRepository } from './storage/session-repository.ts';
import { KnexVoteRepository } from './storage/vote-repository.ts';

export const ACE_SERVICE_NAMES = ['engram.ace.v1.AceService'] as const;

/**
 * The gRPC services of ace-feedback: votes, deltas, reflections, progress sessions, features, runs,
 * curation and consolidation. Every memory it creates or deprecates goes through ingest-security's
 * IngestInternal (the one write pipeline); every read respects visibility.
 */
export function aceServices(platform: Platform, peers: Peers): ServiceRegistration[] {
  const { config, db } = platform;
  const onCommit = platform.notifyCommitted;
  const stage4 = stage4Of(config);
  const pipeline = new GrpcWritePipeline(peers.ingestSecurity, platform.secrets.internalToken);
  platform.addCloser(() => pipeline.close());
  const screen = new VerifiedReader(
    {
      key: platform.secrets.integrityKey,
      mode: config.integrityReadMode,
      requireSigned: config.integrityRequireSigned,
    },
    db.knex,
    onCommit,
    platform.metrics,
  );
  const deps = {
    votes: new KnexVoteRepository(db, onCommit),
    memories: new KnexMemoryLookup(db),
    runs: new KnexRunRepository(db, onCommit),
    sessions: new KnexSessionRepository(db),
    features: new KnexFeatureRepository(db),
    pipeline,
    screen,
    log: new KnexConsolidationLog(db, onCommit),
    policy: contentPolicyOf(config),
    classifier: stage4?.classifier,
    classifierEscalation: stage4?.escalation,
    classifierThreshold: config.injectionClassifierConfidenceThreshold,
    rejections: new KnexRejectionLog(db, onCommit),
  };
  const logger = platform.logger.child({ component: 'ace-feedback' });
  const describe = (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId });
  return [
    {
      definition: AceServiceService,
      implementation: bindService(AceServiceService, aceHandlers(deps), {
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
