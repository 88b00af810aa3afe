/**
 * The vocabulary of a write as it crosses services: what a channel asks to store (WriteRequest), the
 * screened draft ingest-security hands to memory-store (MemoryDraft), what memory-store answers
 * (WriteResult) and a deprecation applied in the same transaction. Plain types, so each service's
 * domain speaks them and only handlers and clients map them to and from protobuf
 * (docs/architecture.md, Folders and what they may import). Field names are the stored snake_case
 * ones: a draft and a write result are the named fields of StoredMemory (declared once there)
 * plus what only they carry, so the mappings are field for field.
 */

import type { StoredMemory } from './stored-memory.ts';

/** A write as every channel hands it to the write pipeline (the AddMemory request's fields). */
export interface WriteRequest {
  readonly content: string;
  readonly agent_id: string;
  readonly memory_type?: string | undefined;
  readonly scope?: string | undefined;
  readonly shared_with: readonly string[];
  readonly trust_level?: string | undefined;
  readonly namespace?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly session_id?: string | undefined;
  readonly sequence_number?: number | undefined;
  readonly entity_id?: string | undefined;
  readonly steps: readonly string[];
  readonly trigger_conditions: readonly string[];
  readonly error_pattern?: string | undefined;
  readonly severity?: string | undefined;
  readonly source_trajectory_id?: string | undefined;
}

/** The provenance written once with a memory (docs/architecture.md, The write path). */
export interface ProvenanceRecord {
  readonly channel: string;
  readonly kind: string;
  readonly agent_id: string;
  readonly api_key_id: string;
  readonly source_run_id: string | null;
  readonly interaction_id: string | null;
  readonly depth: number;
  readonly verdict: Record<string, unknown>;
  readonly taint: string[];
  readonly policy_version: string;
}

/** A screened memory ready to be stored: scope, trust and flags are decided, provenance is complete. */
export type MemoryDraft = Pick<
  StoredMemory,
  | 'namespace'
  | 'agent_id'
  | 'content'
  | 'memory_type'
  | 'scope'
  | 'trust_level'
  | 'metadata'
  | 'content_flags'
  | 'shared_with'
  | 'session_id'
  | 'sequence_number'
  | 'entity_id'
  | 'error_pattern'
  | 'source_trajectory_id'
> & { readonly provenance: ProvenanceRecord };

/** What the store answers for one draft: the stored (or deduplicated onto) memory's decided fields. */
export type WriteResult = Pick<
  StoredMemory,
  'id' | 'scope' | 'content_flags' | 'trust_level' | 'memory_type' | 'namespace'
> & { readonly deduplicated: boolean };

/**
 * A deprecation applied with a write: memory_id is retired, optionally in favour of superseded_by.
 * agent_id is the agent it acts as (absent: the write's agent).
 */
export interface Deprecation {
  readonly memory_id: string;
  readonly superseded_by?: string | undefined;
  readonly reason: string;
  readonly agent_id?: string | undefined;
}
