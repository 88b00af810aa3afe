import type { Deprecation, WriteResult } from '@engram/proto/engram/memory/v1/memory';
import type { MemoryDraft } from '@engram/proto/engram/memory/v1/memory_store';

/** The caller's credentials, passed through to memory-store untouched. */
export type CallerCredentials = unknown;

export interface AuditEventInput {
  readonly event_type: string;
  readonly agent_id: string;
  readonly memory_id?: string;
  readonly details: Record<string, unknown>;
}

/** memory-store's internal write surface, as ingest-security needs it. */
export interface MemoryWriter {
  /** Stores the drafts and applies the deprecations in ONE transaction (all or nothing). */
  persist(
    drafts: MemoryDraft[],
    caller: CallerCredentials,
    deprecations?: readonly Deprecation[],
  ): Promise<{ results: WriteResult[]; deprecatedIds: string[] }>;
  /** Records an audit event that must survive a failed request (SECURITY_REJECTED). */
  recordEvent(event: AuditEventInput, caller: CallerCredentials): Promise<void>;
  close(): void;
}
