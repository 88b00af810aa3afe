import type { EngramConfig } from '@engram/config';
import { createEmbedder } from '@engram/embeddings';
import { createGateway, buildUpstreams } from '@engram/gateway';
import { ACE_SERVICE_NAMES, aceMigrations, aceServices } from '@engram/ace-feedback';
import { INGEST_SERVICE_NAMES, ingestServices } from '@engram/ingest-security';
import {
  bootstrapKeys,
  MEMORY_STORE_SERVICE_NAMES,
  memoryStoreMigrations,
  memoryStoreServices,
  pinEmbeddingSpace,
} from '@engram/memory-store';
import {
  createPlatform,
  embeddingSettings,
  hnswChoice,
  loopbackPeers,
  serveServices,
  type Platform,
} from '@engram/platform';
import { RETRIEVAL_SERVICE_NAMES, retrievalServices } from '@engram/retrieval-ranking';
import { SECURITY_ADMIN_SERVICE_NAMES, securityAdminServices } from '@engram/security-admin';
import type { Logger } from '@engram/logger';

export interface Embedded {
  readonly platform: Platform;
  readonly grpcPort: number;
  readonly httpPort: number;
  /** The system key generated on the first start of an empty data directory (shown once). */
  readonly generatedKey: string | undefined;
  readonly policyVersion: string;
  stop(): Promise<void>;
}

/**
 * The whole suite in one process: every service on one gRPC server, the gateway in front, one
 * platform (PGlite in the data directory and the in-process bus unless DATABASE_URL / NATS_URL say
 * otherwise). Same handlers, same wire: ingest-security reaches memory-store over loopback gRPC.
 */
export async function startEmbedded(config: EngramConfig, logger?: Logger): Promise<Embedded> {
  const platform = await createPlatform({
    config,
    service: 'engram',
    migrations: [memoryStoreMigrations, aceMigrations],
    logger,
  });
  const embedder = await createEmbedder(embeddingSettings(config), platform.logger);
  await pinEmbeddingSpace(platform.db, embedder.space, hnswChoice(config), platform.logger);
  let grpcAddress = '';
  const peers = loopbackPeers(() => grpcAddress);
  const store = memoryStoreServices({ platform, embedder });
  const ingest = ingestServices(platform, peers);
  const services = [
    ...store.services,
    ...ingest.services,
    ...retrievalServices(platform, embedder, peers),
    ...aceServices(platform, peers),
    ...securityAdminServices(platform, peers),
  ];
  const names = [
    ...MEMORY_STORE_SERVICE_NAMES,
    ...INGEST_SERVICE_NAMES,
    ...RETRIEVAL_SERVICE_NAMES,
    ...ACE_SERVICE_NAMES,
    ...SECURITY_ADMIN_SERVICE_NAMES,
  ];
  const generatedKey = await bootstrapKeys(platform, store.keys);
  const { port: grpcPort } = await serveServices(platform, services, names);
  grpcAddress = `127.0.0.1:${grpcPort}`;
  const all = {
    ingestSecurityAddr: grpcAddress,
    memoryStoreAddr: grpcAddress,
    retrievalRankingAddr: grpcAddress,
    aceFeedbackAddr: grpcAddress,
    securityAdminAddr: grpcAddress,
  };
  const gateway = createGateway({
    upstreams: buildUpstreams(all),
    logger: platform.logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    // In-process, the gateway holds the token the services check its channel proof against.
    internalToken: platform.secrets.internalToken,
    // One registry for the process: the gateway's /metrics serves every service's metrics too.
    metrics: platform.metrics.registry,
  });
  const httpPort = await new Promise<number>((resolve, reject) => {
    gateway.server.once('error', reject);
    gateway.server.listen(config.httpPort, config.host, () => {
      const addr = gateway.server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : config.httpPort);
    });
  });
  return {
    platform,
    grpcPort,
    httpPort,
    generatedKey,
    policyVersion: ingest.policyVersion,
    stop: async () => {
      await gateway.close();
      await platform.runtime.shutdown();
    },
  };
}
