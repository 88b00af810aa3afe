import { ConfigError, type EngramConfig } from '@engram/config';

/** Where a process's outbox relay publishes: NATS JetStream, or the bus inside this process. */
export type EventDelivery = 'nats' | 'in-process';

/**
 * Decides EVENTS_DELIVERY, or refuses to start. Every process with a platform runs an outbox relay,
 * and on PostgreSQL every relay drains the same shared outbox. A relay into its in-process bus marks
 * events published that only this process hears; next to processes that publish to NATS it would
 * silently take events away from NATS. So with DATABASE_URL set, NATS_URL is required unless
 * EVENTS_DELIVERY=in-process says that no process on this database uses NATS (one all-in-one process
 * on PostgreSQL). Embedded (PGlite, one process owns the data directory) keeps the in-process bus.
 */
export function eventDelivery(config: EngramConfig): EventDelivery {
  const { eventsDelivery, natsUrl, databaseUrl } = config;
  if (eventsDelivery === 'in-process') {
    if (natsUrl)
      throw new ConfigError('EVENTS_DELIVERY', 'is in-process while NATS_URL is set; unset one of the two');
    return 'in-process';
  }
  if (natsUrl) return 'nats';
  if (eventsDelivery === 'nats') throw new ConfigError('NATS_URL', 'is required when EVENTS_DELIVERY=nats');
  if (databaseUrl === undefined) return 'in-process';
  throw new ConfigError(
    'NATS_URL',
    'is required when DATABASE_URL is set: without it this process would mark the shared outbox published into its in-process bus (set EVENTS_DELIVERY=in-process only if no process on this database uses NATS)',
  );
}
