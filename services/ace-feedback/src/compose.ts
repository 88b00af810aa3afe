import { bindService } from '@engram/grpc-kit';
import type { ComposedService, Peers, ServiceProcess } from '@engram/platform';
import { AceServiceService } from '@engram/proto/engram/ace/v1/ace';
import { aceMigrations } from '../migrations/index.ts';
import { GrpcWritePipeline, InProcessWritePipeline } from './clients/ingest-client.ts';
import { aceConfig } from './config.ts';
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
 * ace-feedback: votes, deltas, reflections, progress sessions, features, runs, curation and
 * consolidation. Every memory it creates or deprecates goes through ingest-security's IngestInternal
 * (the one write pipeline); every read respects visibility. It uses its own tables (migrations),
 * the outbox, the verified reader, keys and Idempotency-Keys.
 */
export async function composeAceFeedback(proc: ServiceProcess, peers: Peers): Promise<ComposedService> {
  const { screening } = aceConfig(proc.config);
  const db = await proc.database(aceMigrations);
  const { notifyCommitted } = await proc.events();
  const token = proc.secrets.internalToken;
  const pipeline = peers.inProcess
    ? new InProcessWritePipeline(peers.inProcess, token)
    : new GrpcWritePipeline(peers.ingestSecurity, token);
  proc.addCloser('ingest-security client', () => pipeline.close());
  const handlers = aceHandlers({
    votes: new KnexVoteRepository(db, notifyCommitted),
    memories: new KnexMemoryLookup(db),
    runs: new KnexRunRepository(db, notifyCommitted),
    sessions: new KnexSessionRepository(db),
    features: new KnexFeatureRepository(db),
    pipeline,
    screen: await proc.verifiedReader(),
    log: new KnexConsolidationLog(db, notifyCommitted),
    rejections: new KnexRejectionLog(db, notifyCommitted),
    ...screening,
  });
  return {
    names: ACE_SERVICE_NAMES,
    services: [
      {
        definition: AceServiceService,
        implementation: bindService(
          AceServiceService,
          handlers,
          await proc.binding('ace-feedback', [AceServiceService]),
        ),
      },
    ],
  };
}
