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
import type { Principal } from '@engram/auth';
import type { EngramConfig } from '@engram/config';
import {
  migrateLatest,
  openDatabase,
  pinnedHnswSettings,
  poolUsage,
  type Database,
  type MigrationSet,
} from '@engram/db';
import { createEmbedder, type Embedder } from '@engram/embeddings';
import {
  eventsMigrations,
  InProcessBus,
  NatsJetStreamPublisher,
  OutboxRelay,
  outboxBacklog,
  type EventPublisher,
} from '@engram/events';
import { HealthStatus, isIdempotentWrite, type BindOptions, type IdempotencyStore } from '@engram/grpc-kit';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AnswerSeal, idempotencyMigrations, KnexIdempotencyStore } from '@engram/idempotency';
import { createLogger, type Logger } from '@engram/logger';
import { VerifiedReader } from '@engram/memories';
import { Runtime, type ShutdownPhase } from '@engram/runtime';
import {
  engramMetrics,
  OUTBOX_SAMPLE_TIMEOUT_MS,
  startTracing,
  tracingOptions,
  watchOutbox,
  watchPools,
  type EngramMetrics,
} from '@engram/telemetry';
import { embeddingSettings } from './embedding-settings.ts';
import { eventDelivery, type EventDelivery } from './event-delivery.ts';
import { resolveSecrets, type Secrets } from './secrets.ts';

/** The transactional outbox of a process that records audit events: commit, then wake the relay. */
export interface EventOutbox {
  readonly relay: OutboxRelay;
  readonly publisher: EventPublisher;
  /** Wakes the relay after a commit, so events leave at once. */
  readonly notifyCommitted: () => void;
}

export interface ServiceProcessOptions {
  readonly config: EngramConfig;
  /** Process name in logs and traces: memory-store, engram (embedded), ... */
  readonly service: string;
  readonly logger?: Logger;
  /** The registry to record on; a new one when absent. */
  readonly metrics?: EngramMetrics;
}

const PROBE_INTERVAL_MS = 2_000;

/**
 * What one process's services stand on, each part built the first time a service's compose asks for
 * it and shared from then on (the all-in-one composes five services on one process: one pool, one
 * relay, one authenticator). A process builds only what its services use: ingest-security opens the
 * database for keys and Idempotency-Keys and never starts an outbox relay or a NATS connection.
 * Every part registers its own shutdown step on the process's Runtime, in its phase.
 */
export class ServiceProcess {
  readonly embedded: boolean;
  readonly secrets: Secrets;
  readonly runtime: Runtime;
  /** Where the outbox relay publishes, decided (or refused) before anything is opened. */
  readonly delivery: EventDelivery;
  private readonly healthMaps: HealthStatus[] = [];
  /** False once shutdown began: no probe or late ping marks a service SERVING again. */
  private serving = true;
  private servingStep = false;
  private readonly applied = new Set<string>();
  private db: Promise<Database> | undefined;
  private outbox: Promise<EventOutbox> | undefined;
  private keys: Promise<KeyAuthenticator> | undefined;
  private answers: Promise<IdempotencyStore> | undefined;
  private embedderOnce: Promise<Embedder> | undefined;
  private readerOnce: Promise<VerifiedReader> | undefined;

  private constructor(
    readonly config: EngramConfig,
    readonly service: string,
    readonly logger: Logger,
    readonly metrics: EngramMetrics,
    delivery: EventDelivery,
  ) {
    this.embedded = config.databaseUrl === undefined;
    this.delivery = delivery;
    this.secrets = resolveSecrets(config, this.embedded);
    this.runtime = new Runtime(logger, config.shutdownTimeoutMs);
  }

  /** Validates the settings every process shares, starts tracing, and builds nothing else yet. */
  static async open(opts: ServiceProcessOptions): Promise<ServiceProcess> {
    const { config } = opts;
    // Before anything is opened: a relay without NATS on a shared database refuses to start.
    const delivery = eventDelivery(config);
    const logger = opts.logger ?? createLogger({ service: opts.service, level: config.logLevel });
    // First, so that the clients and pools made later are traced; a no-op without an OTLP endpoint.
    const stopTracing = await startTracing(
      tracingOptions(config, opts.service, logger.child({ component: 'tracing' })),
    );
    const proc = new ServiceProcess(config, opts.service, logger, opts.metrics ?? engramMetrics(), delivery);
    proc.runtime.onShutdown('tracing', stopTracing, 'telemetry'); // flushes the spans of every step above
    return proc;
  }

  /** Registers a resource (a gRPC client of a peer) that shutdown releases before the pools. */
  addCloser(name: string, close: () => void | Promise<void>, phase: ShutdownPhase = 'clients'): void {
    this.runtime.onShutdown(name, close, phase);
  }

  /**
   * The database (PGlite in the data directory, or DATABASE_URL's pools), opened once, with the
   * given migration sets applied (each once per process), and probed for the health maps.
   */
  async database(...sets: MigrationSet[]): Promise<Database> {
    this.db ??= this.openDatabase();
    const db = await this.db;
    for (const set of sets) {
      if (this.applied.has(set.owner)) continue;
      this.applied.add(set.owner);
      const applied = await migrateLatest(db, set);
      if (applied.length > 0)
        this.logger.info({ owner: set.owner, applied: applied.length }, 'migrations applied');
    }
    return db;
  }

  /** The outbox relay and its publisher (NATS JetStream or the in-process bus), started once. */
  events(): Promise<EventOutbox> {
    this.outbox ??= this.startOutbox();
    return this.outbox;
  }

  /** API-key authentication with the rate limits (shared through Redis when REDIS_URL is set). */
  authenticator(): Promise<KeyAuthenticator> {
    this.keys ??= this.makeAuthenticator();
    return this.keys;
  }

  /** Idempotency-Key records of write RPCs, shared by every replica through the database. */
  idempotency(): Promise<IdempotencyStore> {
    this.answers ??= this.makeIdempotency();
    return this.answers;
  }

  /** The configured embedder (EMBEDDING_*), loaded once per process. */
  embedder(): Promise<Embedder> {
    this.embedderOnce ??= createEmbedder(embeddingSettings(this.config), this.logger);
    return this.embedderOnce;
  }

  /** Verify-on-read with INTEGRITY_READ_MODE / INTEGRITY_REQUIRE_SIGNED; failures are audit events. */
  verifiedReader(): Promise<VerifiedReader> {
    this.readerOnce ??= (async () => {
      const [db, outbox] = await Promise.all([this.database(), this.events()]);
      const { config } = this;
      return new VerifiedReader(
        {
          key: this.secrets.integrityKey,
          mode: config.integrityReadMode,
          requireSigned: config.integrityRequireSigned,
        },
        db.knex,
        outbox.notifyCommitted,
        this.metrics,
      );
    })();
    return this.readerOnce;
  }

  /**
   * The options every service binds its handlers with: API-key authentication (or `authenticate`),
   * the component's logger, metrics and the internal token, and the Idempotency-Key store when one
   * of `services` has a write RPC an Idempotency-Key applies to (read from the contract).
   */
  async binding(
    component: string,
    services: readonly ServiceDefinition[],
    authenticate?: BindOptions<Principal>['authenticate'],
  ): Promise<BindOptions<Principal>> {
    const writes = services.some((d) => Object.values(d).some((m) => isIdempotentWrite(m.path)));
    const auth = await this.authenticator();
    return {
      authenticate: authenticate ?? auth.authenticate,
      logger: this.logger.child({ component }),
      describe: (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId }),
      metrics: this.metrics,
      idempotency: writes ? await this.idempotency() : undefined,
      internalToken: this.secrets.internalToken,
    };
  }

  /** A health map for these gRPC services, driven by the database probe (SERVING without a database). */
  health(services: readonly string[]): HealthStatus {
    const h = new HealthStatus(services);
    this.stopServingOnShutdown();
    this.healthMaps.push(h);
    if (this.db === undefined) h.setAll(true);
    else
      void this.db
        .then((db) => db.ping())
        .then(
          (ok) => h.setAll(ok && this.serving),
          () => h.setAll(false),
        );
    return h;
  }

  /**
   * One step for every health map of the process and the database probe that drives them, added
   * once: NOT_SERVING at the start of the server phase, so that load balancers stop sending before
   * the servers drain, and the probe stops with it.
   */
  private stopServingOnShutdown(): void {
    if (this.servingStep) return;
    this.servingStep = true;
    this.runtime.onShutdown(
      'health',
      () => {
        this.serving = false;
        for (const m of this.healthMaps) m.setAll(false);
      },
      'server',
    );
  }

  private async openDatabase(): Promise<Database> {
    const { config } = this;
    const db = await openDatabase({
      url: config.databaseUrl,
      readUrl: config.databaseReadUrl,
      dataDir: join(config.dataDir, 'pglite'),
      pgliteWorker: config.pgliteWorker,
      poolMax: config.databasePoolMax,
      hnswEfSearch: config.hnswEfSearch,
      timeouts: {
        connectMs: config.databaseConnectTimeoutMs,
        acquireMs: config.databaseAcquireTimeoutMs,
        queryMs: config.databaseQueryTimeoutMs,
      },
      log: this.logger.child({ component: 'knex' }),
    });
    // ef_search belongs to the store's embedding space: search at the pinned value once there is one
    // (until then at HNSW_EF_SEARCH or the default; retrieval re-reads the pin as it goes).
    const pinned = await pinnedHnswSettings(db.knex).catch(() => undefined);
    if (pinned) await db.setHnswEfSearch(pinned.efSearch);
    const unwatch = watchPools(this.metrics, () => poolUsage(db));
    this.stopServingOnShutdown();
    const probe = async () => {
      while (this.serving) {
        const ok = await db.ping();
        // A ping that answers after shutdown began must not mark the services SERVING again.
        if (this.serving) for (const h of this.healthMaps) h.setAll(ok);
        await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS).unref());
      }
    };
    void probe();
    this.runtime.onShutdown(
      'database',
      async () => {
        unwatch();
        await db.close();
      },
      'storage',
    );
    return db;
  }

  private async startOutbox(): Promise<EventOutbox> {
    const { config } = this;
    const db = await this.database(eventsMigrations);
    const publisher: EventPublisher =
      this.delivery === 'nats' && config.natsUrl
        ? await NatsJetStreamPublisher.connect({
            servers: config.natsUrl,
            stream: config.natsStream,
            logger: this.logger.child({ component: 'nats' }),
            name: this.service,
          })
        : new InProcessBus({ logger: this.logger.child({ component: 'bus' }) });
    const relay = new OutboxRelay({
      db,
      publisher,
      logger: this.logger.child({ component: 'outbox-relay' }),
      metrics: this.metrics,
      maxFailedAttempts: config.eventsMaxPublishAttempts,
    });
    relay.start();
    // Sampled on each scrape; the outbox query is bounded so a scrape answers with the database down.
    const unwatch = watchOutbox(this.metrics, () => outboxBacklog(db.knex, OUTBOX_SAMPLE_TIMEOUT_MS));
    // The relay publishes what is committed before the publisher drains: one step, in that order.
    this.runtime.onShutdown('outbox relay', async () => {
      unwatch();
      await relay.stop();
      await publisher.close();
    });
    return { relay, publisher, notifyCommitted: () => relay.notify() };
  }

  private async makeAuthenticator(): Promise<KeyAuthenticator> {
    const { config } = this;
    const db = await this.database();
    // Rate limits (docs/architecture.md, Authorization): shared through Redis when REDIS_URL is set.
    const limits = limitsPerMinute(config.rateLimitProjectPerMinute, config.rateLimitAgentPerMinute);
    const limiter: RateLimiter = countingLimiter(
      config.redisUrl
        ? new RedisRateLimiter({
            url: config.redisUrl,
            limits,
            logger: this.logger.child({ component: 'rate-limit' }),
          })
        : new MemoryRateLimiter(limits),
      this.metrics,
    );
    this.runtime.onShutdown('rate limiter', () => limiter.close());
    return new KeyAuthenticator({
      keys: new KnexKeyLookup(db.read),
      bootstrapKey: config.serviceApiKey,
      internalToken: this.secrets.internalToken,
      limiter,
    });
  }

  private async makeIdempotency(): Promise<IdempotencyStore> {
    const db = await this.database(idempotencyMigrations);
    const store = new KnexIdempotencyStore({
      knex: db.knex,
      ttlMs: this.config.idempotencyTtlHours * 3_600_000,
      logger: this.logger.child({ component: 'idempotency' }),
      seal: new AnswerSeal(this.secrets.integrityKey),
    });
    store.start();
    this.runtime.onShutdown('idempotency sweeper', () => store.stop());
    return store;
  }
}
