export type { StoredMemory } from '@engram/memory-model';

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

/** A screened memory ready to be stored. */
export interface Draft {
  readonly namespace: string;
  readonly agent_id: string;
  readonly content: string;
  readonly memory_type: string;
  readonly scope: string;
  readonly trust_level: string;
  readonly metadata: Record<string, unknown>;
  readonly content_flags: string[];
  readonly shared_with: string[];
  readonly session_id: string | null;
  readonly sequence_number: number | null;
  readonly entity_id: string | null;
  readonly error_pattern: string | null;
  readonly source_trajectory_id: string | null;
  readonly provenance: ProvenanceRecord;
}

export interface PersistResult {
  readonly id: string;
  readonly deduplicated: boolean;
  readonly scope: string;
  readonly content_flags: string[];
  readonly trust_level: string;
  readonly memory_type: string;
  readonly namespace: string;
}
