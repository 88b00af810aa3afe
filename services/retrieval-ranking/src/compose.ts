import { bindService } from '@engram/grpc-kit';
import type { ComposedService, Peers, ServiceProcess } from '@engram/platform';
import { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import { retrievalConfig } from './config.ts';
import { retrievalHandlers } from './handlers/retrieval-handlers.ts';
import { KnexPlaybookRepository } from './storage/playbook-repository.ts';
import { KnexSearchRepository } from './storage/search-repository.ts';

export const RETRIEVAL_SERVICE_NAMES = ['engram.retrieval.v1.RetrievalService'] as const;

/**
 * retrieval-ranking: vector, hybrid and playbook queries and the context reads, over the read
 * connection, each row verified before it is returned (a failure is an audit event on the outbox).
 * It embeds queries with the store's embedder and calls no peer.
 */
export async function composeRetrievalRanking(proc: ServiceProcess, _peers: Peers): Promise<ComposedService> {
  const { ranking, lexicalRounds } = retrievalConfig(proc.config);
  const db = await proc.database();
  const handlers = retrievalHandlers({
    search: new KnexSearchRepository(db, lexicalRounds),
    embedder: await proc.embedder(),
    reader: await proc.verifiedReader(),
    playbook: new KnexPlaybookRepository(db),
    ranking,
  });
  return {
    names: RETRIEVAL_SERVICE_NAMES,
    services: [
      {
        definition: RetrievalServiceService,
        implementation: bindService(
          RetrievalServiceService,
          handlers,
          await proc.binding('retrieval-ranking', [RetrievalServiceService]),
        ),
      },
    ],
  };
}
