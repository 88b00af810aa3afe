import { join } from 'node:path';
import {
  countingLimiter,
  KeyAuthenticator,
  KnexKeyLookup,
  limitsPerMinute,
  MemoryRateLimiter,
  RedisRateLimiter,
  type RateLimiter,
} from '@engram/access';
import type { EngramConfig } from '@engram/config';
import {
  migrateLatest,
  openDatabase,
  pinnedHnswSettings,
  poolUsage,
  type Database,
  type MigrationSet,
} from '@engram/db';
import {
  eventsMigrations,
  InProcessBus,
  NatsJetStreamPublisher,
  OutboxRelay,
  outboxBacklog,
  type EventPublisher,
} from '@engram/events';
import { HealthStatus, Runtime, type IdempotencyStore } from '@engram/grpc-kit';
import { AnswerSeal, idempotencyMigrations, KnexIdempotencyStore } from '@engram/idempotency';
import { createLogger, type Logger } from '@engram/logger';
import {
  engramMetrics,
  OUTBOX_SAMPLE_TIMEOUT_MS,
  startTracing,
  tracingOptions,
  watchOutbox,
  watchPools,
  type EngramMetrics,
} from '@engram/telemetry';
import { eventDelivery } from './event-delivery.ts';
import { resolveSecrets, type Secrets } from './secrets.ts';

/** What every Engram process stands on; one per process (embedded mode shares one between services). */
export interface Platform {
  readonly config: EngramConfig;
  readonly embedded: boolean;
  readonly logger: Logger;
  readonly db: Database;
  readonly secrets: Secrets;
  readonly publisher: EventPublisher;
  readonly relay: OutboxRelay;
  readonly authenticator: KeyAuthenticator;
  readonly runtime: Runtime;
  /**
   * The process's metrics (one registry; embedded mode shares it with the gateway). Pass it to
   * bindService and the other components; serveServices exposes it on ENGRAM_METRICS_PORT.
   */
  readonly metrics: EngramMetrics;
  /**
   * Idempotency-Key records of write RPCs, shared by every replica through the database; pass it to
   * bindService (`idempotency`) with `describe`.
   */
  readonly idempotency: IdempotencyStore;
  /** Wakes the outbox relay after a commit, so events leave at once. */
  readonly notifyCommitted: () => void;
  /**
   * Closes clients (addCloser), stops the relay, drains the publisher, closes the pools, flushes the
   * traces; after the servers.
   */
  close(): Promise<void>;
  /** Registers a resource (a gRPC client of a peer) that close() releases before the pools. */
  addCloser(close: () => void | Promise<void>): void;
  /** A health map for these gRPC services, driven by the database probe. */
  health(services: readonly string[]): HealthStatus;
}

export interface PlatformOptions {
  readonly config: EngramConfig;
  /** Process name in logs: memory-store, engram (embedded), ... */
  readonly service: string;
  /** Migration sets this process applies at start (events and idempotency are always applied). */
  readonly migrations: readonly MigrationSet[];
  readonly logger?: Logger;
  /** The registry to record on; a new one when absent. */
  readonly metrics?: EngramMetrics;
}

const PROBE_INTERVAL_MS = 2_000;

export async function createPlatform(opts: PlatformOptions): Promise<Platform> {
  const { config } = opts;
  const embedded = config.databaseUrl === undefined;
  // Before anything is opened: a relay without NATS on a shared database refuses to start.
  const delivery = eventDelivery(config);
  const logger = opts.logger ?? createLogger({ service: opts.service, level: config.logLevel });
  // First, so that the clients and pools made below are traced; a no-op without an OTLP endpoint.
  const stopTracing = await startTracing(
    tracingOptions(config, opts.service, logger.child({ component: 'tracing' })),
  );
  const secrets = resolveSecrets(config, embedded);
  const runtime = new Runtime(logger, config.shutdownTimeoutMs);
  const metrics = opts.metrics ?? engramMetrics();
  const db = await openDatabase({
    url: config.databaseUrl,
    readUrl: config.databaseReadUrl,
    dataDir: join(config.dataDir, 'pglite'),
    poolMax: config.databasePoolMax,
    hnswEfSearch: config.hnswEfSearch,
    timeouts: {
      connectMs: config.databaseConnectTimeoutMs,
      acquireMs: config.databaseAcquireTimeoutMs,
      queryMs: config.databaseQueryTimeoutMs,
    },
    log: logger.child({ component: 'knex' }),
  });
  for (const set of [eventsMigrations, idempotencyMigrations, ...opts.migrations]) {
    const applied = await migrateLatest(db, set);
    if (applied.length > 0) logger.info({ owner: set.owner, applied: applied.length }, 'migrations applied');
  }
  // ef_search belongs to the store's embedding space: search at the pinned value once there is one
  // (until then at HNSW_EF_SEARCH or the default; retrieval re-reads the pin as it goes).
  const pinned = await pinnedHnswSettings(db.knex).catch(() => undefined);
  if (pinned) await db.setHnswEfSearch(pinned.efSearch);
  const publisher: EventPublisher =
    delivery === 'nats' && config.natsUrl
      ? await NatsJetStreamPublisher.connect({
          servers: config.natsUrl,
          stream: config.natsStream,
          logger: logger.child({ component: 'nats' }),
          name: opts.service,
        })
      : new InProcessBus({ logger: logger.child({ component: 'bus' }) });
  const relay = new OutboxRelay({
    db,
    publisher,
    logger: logger.child({ component: 'outbox-relay' }),
    metrics,
    maxFailedAttempts: config.eventsMaxPublishAttempts,
  });
  relay.start();
  // Sampled on each scrape; the outbox query is bounded so a scrape answers with the database down.
  const unwatch = [
    watchOutbox(metrics, () => outboxBacklog(db.knex, OUTBOX_SAMPLE_TIMEOUT_MS)),
    watchPools(metrics, () => poolUsage(db)),
  ];
  // Rate limits (docs/architecture.md, Authorization): shared through Redis when REDIS_URL is set, else in-process.
  const limits = limitsPerMinute(config.rateLimitProjectPerMinute, config.rateLimitAgentPerMinute);
  const limiter: RateLimiter = countingLimiter(
    config.redisUrl
      ? new RedisRateLimiter({
          url: config.redisUrl,
          limits,
          logger: logger.child({ component: 'rate-limit' }),
        })
      : new MemoryRateLimiter(limits),
    metrics,
  );
  const authenticator = new KeyAuthenticator({
    keys: new KnexKeyLookup(db.read),
    bootstrapKey: config.serviceApiKey,
    internalToken: secrets.internalToken,
    limiter,
  });

  const idempotency = new KnexIdempotencyStore({
    knex: db.knex,
    ttlMs: config.idempotencyTtlHours * 3_600_000,
    logger: logger.child({ component: 'idempotency' }),
    seal: new AnswerSeal(secrets.integrityKey),
  });
  idempotency.start();

  const healthMaps: HealthStatus[] = [];
  const closers: (() => void | Promise<void>)[] = [];
  let probing = true;
  const probe = async () => {
    while (probing) {
      const ok = await db.ping();
      for (const h of healthMaps) h.setAll(ok);
      await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS).unref());
    }
  };
  void probe();

  runtime.onShutdown('health', () => {
    probing = false;
    for (const h of healthMaps) h.setAll(false);
  });

  const platform: Platform = {
    config,
    embedded,
    logger,
    db,
    secrets,
    publisher,
    relay,
    authenticator,
    runtime,
    metrics,
    idempotency,
    notifyCommitted: () => relay.notify(),
    addCloser(fn) {
      closers.push(fn);
    },
    async close() {
      probing = false;
      for (const fn of closers) await fn();
      idempotency.stop();
      await relay.stop();
      await limiter.close();
      await publisher.close();
      for (const stop of unwatch) stop();
      await db.close();
      await stopTracing(); // last: flushes the spans of everything above
    },
    health(services) {
      const h = new HealthStatus(services);
      healthMaps.push(h);
      void db.ping().then((ok) => h.setAll(ok));
      return h;
    },
  };
  return platform;
}
