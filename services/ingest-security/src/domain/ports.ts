import type { Caller } from '@engram/auth';
import type { Deprecation, MemoryDraft, WriteResult } from '@engram/memory-model';

export interface AuditEventInput {
  readonly event_type: string;
  readonly agent_id: string;
  readonly memory_id?: string;
  readonly details: Record<string, unknown>;
}

/**
 * memory-store's internal write surface, as ingest-security needs it. `caller` is the original
 * caller's forwarded credentials: memory-store authorizes every draft as that caller's write.
 */
export interface MemoryWriter {
  /** Stores the drafts and applies the deprecations in ONE transaction (all or nothing). */
  persist(
    drafts: readonly MemoryDraft[],
    caller: Caller,
    deprecations?: readonly Deprecation[],
  ): Promise<{ results: WriteResult[]; deprecatedIds: string[] }>;
  /** Records an audit event that must survive a failed request (SECURITY_REJECTED). */
  recordEvent(event: AuditEventInput, caller: Caller): Promise<void>;
  close(): void;
}
