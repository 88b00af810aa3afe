import { join } from 'node:path';
import type { EngramConfig } from '@engram/config';
import { KeyAuthenticator } from '@engram/auth';
import { migrateLatest, openDatabase, type Database, type MigrationSet } from '@engram/db';
import {
  eventsMigrations,
  InProcessBus,
  NatsJetStreamPublisher,
  OutboxRelay,
  type EventPublisher,
} from '@engram/events';
import {
  HealthStatus,
  limitsPerMinute,
  MemoryRateLimiter,
  RedisRateLimiter,
  Runtime,
  type RateLimiter,
} from '@engram/grpc-kit';
import { createLogger, type Logger } from '@engram/logger';
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
  /** Wakes the outbox relay after a commit, so events leave at once. */
  readonly notifyCommitted: () => void;
  /** Closes clients (addCloser), stops the relay, drains the publisher, closes the pools; after the servers. */
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
  /** Migration sets this process applies at start (events are always applied). */
  readonly migrations: readonly MigrationSet[];
  readonly logger?: Logger;
}

const PROBE_INTERVAL_MS = 2_000;

export async function createPlatform(opts: PlatformOptions): Promise<Platform> {
  const { config } = opts;
  const embedded = config.databaseUrl === undefined;
  const logger = opts.logger ?? createLogger({ service: opts.service, level: config.logLevel });
  const secrets = resolveSecrets(config, embedded);
  const runtime = new Runtime(logger, config.shutdownTimeoutMs);
  const db = await openDatabase({
    url: config.databaseUrl,
    readUrl: config.databaseReadUrl,
    dataDir: join(config.dataDir, 'pglite'),
    poolMax: config.databasePoolMax,
    hnswEfSearch: config.hnswEfSearch,
  });
  for (const set of [eventsMigrations, ...opts.migrations]) {
    const applied = await migrateLatest(db, set);
    if (applied.length > 0) logger.info({ owner: set.owner, applied: applied.length }, 'migrations applied');
  }
  const publisher: EventPublisher = config.natsUrl
    ? await NatsJetStreamPublisher.connect({
        servers: config.natsUrl,
        stream: config.natsStream,
        logger: logger.child({ component: 'nats' }),
        name: opts.service,
      })
    : new InProcessBus({ logger: logger.child({ component: 'bus' }) });
  const relay = new OutboxRelay({ db, publisher, logger: logger.child({ component: 'outbox-relay' }) });
  relay.start();
  // Rate limits (DESIGN.md section 5): shared through Redis when REDIS_URL is set, else in-process.
  const limits = limitsPerMinute(config.rateLimitProjectPerMinute, config.rateLimitAgentPerMinute);
  const limiter: RateLimiter = config.redisUrl
    ? new RedisRateLimiter({
        url: config.redisUrl,
        limits,
        logger: logger.child({ component: 'rate-limit' }),
      })
    : new MemoryRateLimiter(limits);
  const authenticator = new KeyAuthenticator({
    knex: db.read,
    bootstrapKey: config.serviceApiKey,
    internalToken: secrets.internalToken,
    limiter,
  });

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
    notifyCommitted: () => relay.notify(),
    addCloser(fn) {
      closers.push(fn);
    },
    async close() {
      probing = false;
      for (const fn of closers) await fn();
      await relay.stop();
      await limiter.close();
      await publisher.close();
      await db.close();
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
