import type { Knex } from 'knex';
import type { Database } from '@engram/db';
import type { Logger } from '@engram/logger';
import { encodeAuditPayload, toAuditPayload, type AuditEventRecord } from './audit-event.ts';
import { errorSummary } from './error-summary.ts';
import type { EventPublisher } from './event-publisher.ts';
import { markAttemptFailed, markPublished, selectUnpublished } from './outbox-batch.ts';
import { auditSubject, DEFAULT_SUBJECT_PREFIX } from './subjects.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

export interface OutboxRelayOptions {
  readonly db: Database;
  readonly publisher: EventPublisher;
  readonly logger: Logger;
  /** Rows claimed per batch; default 100. */
  readonly batchSize?: number;
  /** Pause between polls when the outbox is empty (notify() cuts it short); default 200. */
  readonly pollIntervalMs?: number;
  /** Ceiling of the exponential back-off after a failure; default 5000. */
  readonly maxBackoffMs?: number;
  /** Subject prefix; default `engram.audit`. */
  readonly subjectPrefix?: string;
}

export interface OutboxRelayStatus {
  readonly running: boolean;
  /** Failed batches in a row; 0 when the last batch went through. */
  readonly consecutiveFailures: number;
  /** Events this relay published since it was created. */
  readonly published: number;
}

interface BatchOutcome {
  readonly claimed: number;
  readonly failed: { readonly event?: AuditEventRecord; readonly err: unknown } | undefined;
}

const WARN_EVERY_MS = 60_000;

/**
 * Moves audit events from the outbox (audit_events rows with published_at null) to the publisher, in
 * created_at, event_id order. A failed publish ends the batch, counts an attempt on that row, and the
 * relay backs off exponentially (pollIntervalMs doubling up to maxBackoffMs) before it tries the same
 * row again: nothing is skipped or lost. Delivery is at least once; the publisher de-duplicates by event
 * id. On PostgreSQL the batch runs in a transaction holding its rows FOR UPDATE SKIP LOCKED, so several
 * replicas may relay the same database without publishing an event twice (order across replicas is
 * then only roughly by time). On PGlite (one connection, one process) no transaction is held while
 * publishing. Logs carry event ids and types, never payloads.
 */
export class OutboxRelay {
  private readonly db: Database;
  private readonly publisher: EventPublisher;
  private readonly log: Logger;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly prefix: string;
  private readonly sleeper = new WakeableSleep();
  private running = false;
  private loop: Promise<void> | undefined;
  private notified = false;
  private backingOff = false;
  private failures = 0;
  private published = 0;
  private lastWarnAt = 0;

  constructor(opts: OutboxRelayOptions) {
    this.db = opts.db;
    this.publisher = opts.publisher;
    this.log = opts.logger.child({ component: 'outbox-relay' });
    this.batchSize = opts.batchSize ?? 100;
    this.pollIntervalMs = opts.pollIntervalMs ?? 200;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5000;
    this.prefix = opts.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    if (
      !(this.batchSize >= 1) ||
      !(this.pollIntervalMs >= 1) ||
      !(this.maxBackoffMs >= this.pollIntervalMs)
    ) {
      throw new RangeError('batchSize >= 1, pollIntervalMs >= 1 and maxBackoffMs >= pollIntervalMs');
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Ends the loop after the batch in flight (its publishes and bookkeeping) completes. */
  async stop(): Promise<void> {
    this.running = false;
    this.sleeper.wake();
    await this.loop;
    this.loop = undefined;
  }

  /** Call after committing a transaction that appended events: relays now, not at the next poll. */
  notify(): void {
    this.notified = true;
    if (!this.backingOff) this.sleeper.wake();
  }

  status(): OutboxRelayStatus {
    return { running: this.running, consecutiveFailures: this.failures, published: this.published };
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.notified = false;
      let outcome: BatchOutcome;
      try {
        outcome = await this.relayBatch();
      } catch (err) {
        outcome = { claimed: 0, failed: { err } }; // the database, not the publisher
      }
      if (outcome.failed) {
        this.failures += 1;
        this.reportFailure(outcome.failed.event, outcome.failed.err);
        if (!this.running) break;
        this.backingOff = true;
        await this.sleeper.sleep(this.backoffMs());
        this.backingOff = false;
        continue;
      }
      if (this.failures > 0) {
        this.log.info({ failed_batches: this.failures }, 'relaying again');
        this.failures = 0;
        this.lastWarnAt = 0;
      }
      if (!this.running) break;
      if (outcome.claimed < this.batchSize && !this.notified) await this.sleeper.sleep(this.pollIntervalMs);
    }
  }

  private relayBatch(): Promise<BatchOutcome> {
    if (this.db.engine === 'postgres')
      return this.db.knex.transaction((trx) => this.publishPending(trx, true));
    return this.publishPending(this.db.knex, false);
  }

  private async publishPending(q: Knex, lock: boolean): Promise<BatchOutcome> {
    const events = await selectUnpublished(q, this.batchSize, lock);
    const done: string[] = [];
    let failed: BatchOutcome['failed'];
    for (const event of events) {
      try {
        const payload = encodeAuditPayload(toAuditPayload(event));
        await this.publisher.publish(
          auditSubject(event.projectId, event.eventType, this.prefix),
          payload,
          event.eventId,
        );
        done.push(event.eventId);
      } catch (err) {
        failed = { event, err };
        break;
      }
    }
    await markPublished(q, done);
    if (failed?.event) await markAttemptFailed(q, failed.event.eventId);
    this.published += done.length;
    if (done.length > 0) this.log.debug({ count: done.length }, 'events published');
    return { claimed: events.length, failed };
  }

  private reportFailure(event: AuditEventRecord | undefined, err: unknown): void {
    const now = Date.now();
    const line = {
      err: errorSummary(err),
      failed_batches: this.failures,
      ...(event
        ? { event_id: event.eventId, event_type: event.eventType, attempts: event.publishAttempts + 1 }
        : {}),
    };
    const msg = event ? 'publish failed; will retry' : 'outbox read failed; will retry';
    if (now - this.lastWarnAt >= WARN_EVERY_MS) {
      this.lastWarnAt = now;
      this.log.warn(line, msg);
    } else {
      this.log.debug(line, msg);
    }
  }

  /** pollIntervalMs * 2^(failures-1), capped, with +-20 % jitter so replicas do not retry in step. */
  private backoffMs(): number {
    const base = Math.min(this.maxBackoffMs, this.pollIntervalMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.round(Math.min(this.maxBackoffMs, base * (0.8 + Math.random() * 0.4)));
  }
}
