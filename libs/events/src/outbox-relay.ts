import type { Knex } from 'knex';
import type { Database } from '@engram/db';
import type { Logger } from '@engram/logger';
import { METRICS, type EngramMetrics } from '@engram/telemetry';
import { appendEvent } from './append-event.ts';
import { encodeAuditPayload, toAuditPayload, type AuditEventRecord } from './audit-event.ts';
import { errorSummary } from './error-summary.ts';
import { EventRejectedError } from './errors.ts';
import type { EventPublisher } from './event-publisher.ts';
import { AUDIT_EVENT_TYPES } from './event-types.ts';
import { markAttemptFailed, markDeadLettered, markPublished, selectUnpublished } from './outbox-batch.ts';
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
  /** Counts events published and failed batches (engram_events_*); not counted when absent. */
  readonly metrics?: EngramMetrics;
  /**
   * Failures of one event alone (the broker refused it, or published other events meanwhile) after
   * which the event moves to the dead letter; default 10. An outage of the whole publisher never counts.
   */
  readonly maxFailedAttempts?: number;
}

export interface OutboxRelayStatus {
  readonly running: boolean;
  /** Failed batches in a row; 0 when the last batch went through. */
  readonly consecutiveFailures: number;
  /** Events this relay published since it was created. */
  readonly published: number;
  /** Events this relay moved to the dead letter since it was created. */
  readonly deadLettered: number;
}

/** A failed publish. `own`: the event's own failure (counts toward its dead letter), not an outage. */
interface Failure {
  readonly event: AuditEventRecord;
  readonly err: unknown;
  readonly own: boolean;
}

interface BatchOutcome {
  readonly claimed: number;
  /** Publish failures, in the order they happened. */
  readonly failures: readonly Failure[];
  /** Set when the outbox could not be read or updated. */
  readonly databaseError?: { readonly err: unknown };
}

export const DEFAULT_MAX_FAILED_ATTEMPTS = 10;

const WARN_EVERY_MS = 60_000;

/**
 * Moves audit events from the outbox (audit_events rows with published_at and dead_lettered_at null) to
 * the publisher, in created_at, event_id order. When a publish fails the relay tries the next event
 * once: if that fails too the publisher is down, the batch ends, both rows count an attempt, and the
 * relay backs off exponentially (pollIntervalMs doubling up to maxBackoffMs) before it tries them
 * again: nothing is skipped or lost, however long the outage. If the next event goes through (or the
 * broker refused the event for good, EventRejectedError), the failure was the event's own: the batch
 * goes on, the row counts a failed attempt, and after maxFailedAttempts of those the event moves to the
 * dead letter (dead_lettered_at; it stays in the audit log) with an EVENT_DEAD_LETTERED audit record, an
 * error log line and engram_events_dead_lettered_total, so one poison event cannot block the outbox.
 * Delivery is at least once; the publisher de-duplicates by event id. On PostgreSQL the batch runs in a transaction holding its rows FOR UPDATE SKIP LOCKED, so several
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
  private deadLettered = 0;
  private lastWarnAt = 0;
  private readonly maxFailedAttempts: number;
  private readonly counted: {
    published(n: number): void;
    failed(reason: 'publisher' | 'database'): void;
    deadLettered(): void;
  };

  constructor(opts: OutboxRelayOptions) {
    this.db = opts.db;
    this.publisher = opts.publisher;
    this.log = opts.logger.child({ component: 'outbox-relay' });
    this.batchSize = opts.batchSize ?? 100;
    this.pollIntervalMs = opts.pollIntervalMs ?? 200;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5000;
    this.prefix = opts.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    this.maxFailedAttempts = opts.maxFailedAttempts ?? DEFAULT_MAX_FAILED_ATTEMPTS;
    const published = opts.metrics?.counter(METRICS.eventsPublished);
    const failures = opts.metrics?.counter(METRICS.eventsPublishFailures);
    const deadLettered = opts.metrics?.counter(METRICS.eventsDeadLettered);
    this.counted = {
      published: (n) => published?.inc(n),
      failed: (reason) => failures?.inc({ reason }),
      deadLettered: () => deadLettered?.inc(),
    };
    if (
      !(this.batchSize >= 1) ||
      !(this.pollIntervalMs >= 1) ||
      !(this.maxBackoffMs >= this.pollIntervalMs) ||
      !(this.maxFailedAttempts >= 1)
    ) {
      throw new RangeError(
        'batchSize >= 1, pollIntervalMs >= 1, maxBackoffMs >= pollIntervalMs and maxFailedAttempts >= 1',
      );
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
    return {
      running: this.running,
      consecutiveFailures: this.failures,
      published: this.published,
      deadLettered: this.deadLettered,
    };
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.notified = false;
      let outcome: BatchOutcome;
      try {
        outcome = await this.relayBatch();
      } catch (err) {
        outcome = { claimed: 0, failures: [], databaseError: { err } }; // the database, not the publisher
      }
      if (outcome.failures.length > 0) this.counted.failed('publisher');
      const outage = outcome.failures.find((f) => !f.own);
      if (outage || outcome.databaseError) {
        this.failures += 1;
        if (outcome.databaseError) this.counted.failed('database');
        this.reportFailure(outage, outage ? outage.err : outcome.databaseError?.err);
        if (!this.running) break;
        this.backingOff = true;
        await this.sleeper.sleep(this.backoffMs());
        this.backingOff = false;
        continue;
      }
      const own = outcome.failures[0];
      if (own) this.reportFailure(own, own.err);
      if (this.failures > 0) {
        this.log.info({ failed_batches: this.failures }, 'relaying again');
        this.failures = 0;
        this.lastWarnAt = 0;
      }
      if (!this.running) break;
      // After an event's own failure, a pause: it is retried at the poll rate, not in a tight loop.
      if (own || (outcome.claimed < this.batchSize && !this.notified))
        await this.sleeper.sleep(this.pollIntervalMs);
    }
  }

  private relayBatch(): Promise<BatchOutcome> {
    if (this.db.engine === 'postgres')
      return this.db.knex.transaction((trx) => this.publishPending(trx, true));
    return this.publishPending(this.db.knex, false);
  }

  /** `inTransaction`: q is the batch's transaction, holding its rows (PostgreSQL). */
  private async publishPending(q: Knex, inTransaction: boolean): Promise<BatchOutcome> {
    const events = await selectUnpublished(q, this.batchSize, inTransaction);
    const done: string[] = [];
    const failures: Failure[] = [];
    // A failure the broker did not call final may be the event's or the publisher's: the next event
    // tells. If it goes through, the publisher works; if it fails too, the publisher is down.
    let suspect: { readonly event: AuditEventRecord; readonly err: unknown } | undefined;
    for (const event of events) {
      try {
        const payload = encodeAuditPayload(toAuditPayload(event));
        await this.publisher.publish(
          auditSubject(event.projectId, event.eventType, this.prefix),
          payload,
          event.eventId,
        );
        done.push(event.eventId);
        if (suspect) failures.push({ ...suspect, own: true });
        suspect = undefined;
      } catch (err) {
        if (err instanceof EventRejectedError) {
          failures.push({ event, err, own: true });
        } else if (suspect) {
          failures.push({ ...suspect, own: false }, { event, err, own: false });
          suspect = undefined;
          break;
        } else {
          suspect = { event, err };
        }
      }
    }
    // Nothing after it told: counted as an outage (it only blocks events that are not there yet).
    if (suspect) failures.push({ ...suspect, own: false });
    await markPublished(q, done);
    for (const f of failures) await this.recordFailure(q, f, inTransaction);
    this.published += done.length;
    this.counted.published(done.length);
    if (done.length > 0) this.log.debug({ count: done.length }, 'events published');
    return { claimed: events.length, failures };
  }

  /** Counts the attempt; the event's own failure number maxFailedAttempts moves it to the dead letter. */
  private async recordFailure(q: Knex, f: Failure, inTransaction: boolean): Promise<void> {
    const failed = await markAttemptFailed(q, f.event.eventId, f.own, errorSummary(f.err));
    if (!f.own || failed < this.maxFailedAttempts) return;
    const moved = inTransaction
      ? await this.deadLetter(q, f, failed)
      : await q.transaction((trx) => this.deadLetter(trx, f, failed));
    if (!moved) return;
    this.deadLettered += 1;
    this.counted.deadLettered();
    this.log.error(
      {
        event_id: f.event.eventId,
        event_type: f.event.eventType,
        failed_attempts: failed,
        err: errorSummary(f.err),
      },
      'event moved to the dead letter: it failed alone too often',
    );
  }

  /**
   * Marks the event dead-lettered and records EVENT_DEAD_LETTERED, which the relay then publishes like
   * any event. The dead letter of such a record adds no record of its own: no loop.
   */
  private async deadLetter(q: Knex, f: Failure, failed: number): Promise<boolean> {
    if (!(await markDeadLettered(q, f.event.eventId))) return false;
    if (f.event.eventType !== AUDIT_EVENT_TYPES.EVENT_DEAD_LETTERED) {
      await appendEvent(q, {
        eventType: AUDIT_EVENT_TYPES.EVENT_DEAD_LETTERED,
        projectId: f.event.projectId,
        memoryId: f.event.memoryId,
        details: {
          event_id: f.event.eventId,
          event_type: f.event.eventType,
          failed_attempts: failed,
          // rejected: the broker refused it; failed: it failed while other events went through.
          reason: f.err instanceof EventRejectedError ? 'rejected' : 'failed',
        },
      });
    }
    return true;
  }

  private reportFailure(failure: Failure | undefined, err: unknown): void {
    const now = Date.now();
    const event = failure?.event;
    const line = {
      err: errorSummary(err),
      failed_batches: this.failures,
      ...(event
        ? {
            event_id: event.eventId,
            event_type: event.eventType,
            attempts: event.publishAttempts + 1,
            own_failure: failure.own,
          }
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
