import type { Database } from '@engram/db';
import { parseAuditDetails, type AuditEventRow } from '@engram/events';
import { CREATED_AT_ISO_SQL, flaggedMemories, memoryInProject } from '@engram/memories';
import type { StoredMemory } from '@engram/memory-model';
import type { Position } from '../domain/cursor.ts';
import type { AuditEntry, AuditFilter, SecurityReadRepository } from '../domain/ports.ts';

/** The audit columns the log shows, and the exact sort key as text (for the next cursor). */
type AuditRow = Omit<AuditEventRow, 'published_at' | 'publish_attempts'> & { at: string };

/**
 * Reads of the audit log, and of memories through @engram/memories, on the read connection (a
 * replica when configured).
 */
export class KnexSecurityReadRepository implements SecurityReadRepository {
  constructor(private readonly db: Database) {}

  async auditEvents(filter: AuditFilter, after: Position | undefined, limit: number): Promise<AuditEntry[]> {
    const r = this.db.read;
    const qb = r('audit_events')
      .select('event_id', 'event_type', 'project_id', 'agent_id', 'memory_id', 'api_key_id', 'details')
      .select('created_at', r.raw(`${CREATED_AT_ISO_SQL} as at`))
      .where('project_id', filter.projectId)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'event_id', order: 'desc' },
      ])
      .limit(limit);
    if (filter.eventType !== undefined) void qb.where('event_type', filter.eventType);
    if (filter.agentId !== undefined) void qb.where('agent_id', filter.agentId);
    if (filter.memoryId !== undefined) void qb.where('memory_id', filter.memoryId);
    if (filter.since !== undefined) void qb.where('created_at', '>=', filter.since);
    if (filter.until !== undefined) void qb.where('created_at', '<', filter.until);
    if (after) void qb.whereRaw('(created_at, event_id) < (?::timestamptz, ?::uuid)', [after.at, after.id]);
    const rows = (await qb) as AuditRow[];
    return rows.map((row) => ({
      event_id: row.event_id,
      event_type: row.event_type,
      project_id: row.project_id,
      agent_id: row.agent_id,
      memory_id: row.memory_id,
      api_key_id: row.api_key_id,
      details: { ...parseAuditDetails(row.details) },
      created_at: new Date(row.created_at),
      position: { at: row.at, id: row.event_id },
    }));
  }

  flagged(
    projectId: string,
    namespace: string | undefined,
    after: Position | undefined,
    limit: number,
  ): Promise<{ memory: StoredMemory; position: Position }[]> {
    return flaggedMemories(this.db.read, projectId, namespace, after, limit);
  }

  memory(projectId: string, id: string): Promise<StoredMemory | undefined> {
    return memoryInProject(this.db.read, projectId, id);
  }
}
