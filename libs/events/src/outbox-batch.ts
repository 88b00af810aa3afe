import type { Knex } from 'knex';
import type { AuditEventRecord } from './audit-event.ts';
import { auditEventFromRow, type AuditEventRow } from './audit-event-row.ts';

/**
 * The relay's SQL over audit_events. `lock` claims the rows with FOR UPDATE SKIP LOCKED, so relays on
 * other connections skip them until the surrounding transaction ends (PostgreSQL replicas).
 */
export async function selectUnpublished(q: Knex, limit: number, lock: boolean): Promise<AuditEventRecord[]> {
  let query = q('audit_events')
    .select('*')
    .whereNull('published_at')
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

/** Records a failed attempt; the row stays unpublished and is retried. */
export async function markAttemptFailed(q: Knex, eventId: string): Promise<void> {
  await q('audit_events').where('event_id', eventId).increment('publish_attempts', 1);
}
