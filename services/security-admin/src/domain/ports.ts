import type { StoredMemory } from '@engram/memory-model';
import type { Position } from './cursor.ts';

export interface AuditFilter {
  readonly projectId: string;
  readonly eventType?: string | undefined;
  readonly agentId?: string | undefined;
  readonly memoryId?: string | undefined;
  /** Inclusive lower and exclusive upper bound, RFC 3339. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export interface AuditEntry {
  readonly event_id: string;
  readonly event_type: string;
  readonly project_id: string;
  readonly agent_id: string | null;
  readonly memory_id: string | null;
  readonly api_key_id: string | null;
  readonly details: Record<string, unknown>;
  readonly created_at: Date;
  /** The exact sort key, for the next cursor. */
  readonly position: Position;
}

/** What security-admin reads (through the read connection); it owns no table. */
export interface SecurityReadRepository {
  /** Newest first, strictly after `after` in that order. */
  auditEvents(filter: AuditFilter, after: Position | undefined, limit: number): Promise<AuditEntry[]>;
  /** Memories of the project with content flags, newest first. */
  flagged(
    projectId: string,
    namespace: string | undefined,
    after: Position | undefined,
    limit: number,
  ): Promise<{ memory: StoredMemory; position: Position }[]>;
  /** A memory of the project, or undefined. */
  memory(projectId: string, id: string): Promise<StoredMemory | undefined>;
}
