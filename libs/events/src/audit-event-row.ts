import type { AuditEventRecord } from './audit-event.ts';

/** A row of audit_events as the drivers return it (PostgreSQL and PGlite differ in dates and JSON). */
export interface AuditEventRow {
  event_id: string;
  event_type: string;
  project_id: string;
  agent_id: string | null;
  memory_id: string | null;
  api_key_id: string | null;
  details: unknown;
  created_at: Date | string;
  published_at: Date | string | null;
  publish_attempts: number | string;
}

export function auditEventFromRow(row: AuditEventRow): AuditEventRecord {
  return {
    eventId: row.event_id,
    eventType: row.event_type,
    projectId: row.project_id,
    agentId: row.agent_id,
    memoryId: row.memory_id,
    apiKeyId: row.api_key_id,
    details: parseAuditDetails(row.details),
    createdAt: toDate(row.created_at),
    publishedAt: row.published_at === null ? null : toDate(row.published_at),
    publishAttempts: Number(row.publish_attempts),
  };
}

/** The details column as an object, whichever driver read it (JSON text or parsed jsonb). */
export function parseAuditDetails(v: unknown): Readonly<Record<string, unknown>> {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

function toDate(v: Date | string): Date {
  return v instanceof Date ? v : new Date(v);
}
