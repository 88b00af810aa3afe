import type { Knex } from 'knex';
import type { AuditEventRecord } from './audit-event.ts';
import { auditEventFromRow, type AuditEventRow } from './audit-event-row.ts';

/** Longest last_error kept on a row (a summary of names and messages, never a payload). */
const MAX_ERROR_LENGTH = 500;

/**
 * The relay's SQL over audit_events. `lock` claims the rows with FOR UPDATE SKIP LOCKED, so relays on
 * other connections skip them until the surrounding transaction ends (PostgreSQL replicas). Rows in
 * the dead letter (dead_lettered_at set) are no longer part of the outbox.
 */
export async function selectUnpublished(q: Knex, limit: number, lock: boolean): Promise<AuditEventRecord[]> {
  let query = q('audit_events')
    .select('*')
    .whereNull('published_at')
    .whereNull('dead_lettered_at')
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'event_id', order: 'asc' },
    ])
    .limit(limit);
  if (lock) query = query.forUpdate().skipLocked();
  const rows = (await query) as AuditEventRow[];
  return rows.map(auditEventFromRow);
}

/** Records a successful publish: published_at (wall clock, not transaction start) and the attempt. */
export async function markPublished(q: Knex, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await q('audit_events')
    .whereIn('event_id', eventIds)
    .update({ published_at: q.raw('clock_timestamp()'), publish_attempts: q.raw('publish_attempts + 1') });
}

/**
 * Records a failed attempt; the row stays in the outbox and is retried. `own`: the failure was this
 * event's alone (the broker refused it, or published others meanwhile), which counts toward its dead
 * letter; an outage of the whole publisher does not. Returns the event's count of such failures.
 */
export async function markAttemptFailed(
  q: Knex,
  eventId: string,
  own: boolean,
  error: string,
): Promise<number> {
  const rows = await q('audit_events')
    .where('event_id', eventId)
    .update({
      publish_attempts: q.raw('publish_attempts + 1'),
      failed_attempts: q.raw(own ? 'failed_attempts + 1' : 'failed_attempts'),
      last_error: error.slice(0, MAX_ERROR_LENGTH),
    })
    .returning<{ failed_attempts: number | string }[]>('failed_attempts');
  return Number(rows[0]?.failed_attempts ?? 0);
}

/** Moves an event out of the outbox into the dead letter; false when it was already gone from it. */
export async function markDeadLettered(q: Knex, eventId: string): Promise<boolean> {
  const n = await q('audit_events')
    .where('event_id', eventId)
    .whereNull('published_at')
    .whereNull('dead_lettered_at')
    .update({ dead_lettered_at: q.raw('clock_timestamp()') });
  return n > 0;
}
