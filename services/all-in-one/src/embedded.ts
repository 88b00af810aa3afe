import type { EngramConfig } from '@engram/config';
import type { Database } from '@engram/db';
import { createGateway, buildUpstreams } from '@engram/gateway';
import { composeAceFeedback } from '@engram/ace-feedback';
import { composeIngestSecurity } from '@engram/ingest-security';
import { composeMemoryStore } from '@engram/memory-store';
import { InProcessInvoker } from '@engram/grpc-kit';
import { inProcessPeers, loopbackPeers, serveServices, ServiceProcess } from '@engram/platform';
import { composeRetrievalRanking } from '@engram/retrieval-ranking';
import { composeSecurityAdmin } from '@engram/security-admin';
import type { Logger } from '@engram/logger';

export interface Embedded {
  /** The one process the five services share (its runtime owns the whole shutdown). */
  readonly proc: ServiceProcess;
  /** The store every service of this process reads and writes. */
  readonly db: Database;
  readonly grpcPort: number;
  readonly httpPort: number;
  /** The system key generated on the first start of an empty data directory (shown once). */
  readonly generatedKey: string | undefined;
  readonly policyVersion: string;
  stop(): Promise<void>;
}

/**
 * The whole suite in one process: each service's own compose (the same factories the distributed
 * processes run) on one ServiceProcess, so they share one database, outbox relay and authenticator;
 * every service on one gRPC server, the gateway in front. PGlite in the data directory and the
 * in-process bus unless DATABASE_URL / NATS_URL say otherwise. Same handlers, same call semantics:
 * with EMBEDDED_IN_PROCESS (the default) the gateway and the services (ingest-security to
 * memory-store, ace-feedback and security-admin to ingest-security) call the server's handlers
 * in-process (InProcessInvoker: metadata, deadline, cancellation, error status and traces as over
 * gRPC, without a socket); without it, over loopback gRPC to this process's own port. The gRPC
 * server listens either way, for external clients. One Runtime stops it all: the gateway
 * (ingress), the gRPC server, the clients, the relay and the pools, then the traces.
 */
export async function startEmbedded(config: EngramConfig, logger?: Logger): Promise<Embedded> {
  const proc = await ServiceProcess.open({ config, service: 'engram', logger });
  try {
    let grpcAddress = '';
    let invoker: InProcessInvoker | undefined;
    const inProcess = () => {
      if (invoker === undefined) throw new Error('in-process call before the gRPC server was built');
      return invoker;
    };
    const peers = config.embeddedInProcess
      ? inProcessPeers(() => grpcAddress, inProcess)
      : loopbackPeers(() => grpcAddress);
    // memory-store first: it migrates the store and pins the embedding space the others read.
    const store = await composeMemoryStore(proc, peers);
    const ingest = await composeIngestSecurity(proc, peers);
    const parts = [
      store,
      ingest,
      await composeRetrievalRanking(proc, peers),
      await composeAceFeedback(proc, peers),
      await composeSecurityAdmin(proc, peers),
    ];
    const { port: grpcPort, services } = await serveServices(proc, {
      names: parts.flatMap((p) => p.names),
      services: parts.flatMap((p) => p.services),
    });
    grpcAddress = `127.0.0.1:${grpcPort}`;
    // The same registrations the server carries, health included: one set of handlers, two ways in.
    if (config.embeddedInProcess) invoker = new InProcessInvoker(services);
    const gateway = createGateway({
      upstreams: buildUpstreams({
        ingestSecurityAddr: grpcAddress,
        memoryStoreAddr: grpcAddress,
        retrievalRankingAddr: grpcAddress,
        aceFeedbackAddr: grpcAddress,
        securityAdminAddr: grpcAddress,
      }),
      ...(invoker ? { inProcess: invoker } : {}),
      logger: proc.logger,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      // In-process, the gateway holds the token the services check its channel proof against.
      internalToken: proc.secrets.internalToken,
      // One registry for the process: the gateway's /metrics serves every service's metrics too.
      metrics: proc.metrics.registry,
    });
    proc.runtime.onShutdown('gateway', () => gateway.close(), 'ingress');
    const httpPort = await gateway.listen(config.httpPort, config.host);
    return {
      proc,
      db: await proc.database(),
      grpcPort,
      httpPort,
      generatedKey: store.generatedKey,
      policyVersion: ingest.policyVersion,
      stop: () => proc.runtime.shutdown(),
    };
  } catch (err) {
    // A start that fails half-way (a taken port, a refused embedding space) leaves nothing open.
    await proc.runtime.shutdown();
    throw err;
  }
}
