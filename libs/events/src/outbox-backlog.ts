import type { Knex } from 'knex';

/** Beyond this the depth is reported as this: counting stays cheap however far the relay is behind. */
export const OUTBOX_COUNT_CAP = 100_000;

/**
 * What the outbox holds: unpublished events (up to OUTBOX_COUNT_CAP) and the age of the oldest. Dead
 * letters are not in the outbox: one would otherwise hold the age alarm up forever.
 */
export interface OutboxBacklogSample {
  readonly pending: number;
  readonly oldestAgeSeconds: number;
}

interface BacklogRow {
  pending: string | number;
  oldest_age_seconds: string | number | null;
}

/**
 * One query over the partial index of unpublished rows (audit_events_unpublished_idx): the oldest row
 * is its first entry, the count stops at the cap. The age is taken on the database's clock, so a
 * skewed host clock cannot make it negative. `timeoutMs` cancels the statement on PostgreSQL.
 */
export async function outboxBacklog(knex: Knex, timeoutMs = 1_000): Promise<OutboxBacklogSample> {
  const result = (await knex
    .raw(
      `select
         (select count(*) from (select 1 from audit_events
           where published_at is null and dead_lettered_at is null limit ?) capped) as pending,
         (select extract(epoch from clock_timestamp() - min(created_at)) from audit_events
           where published_at is null and dead_lettered_at is null) as oldest_age_seconds`,
      [OUTBOX_COUNT_CAP],
    )
    .timeout(timeoutMs, { cancel: true })) as { rows: BacklogRow[] };
  const row = result.rows[0];
  return {
    pending: Number(row?.pending ?? 0),
    oldestAgeSeconds: Math.max(0, Number(row?.oldest_age_seconds ?? 0)),
  };
}
