/**
 * A memory as the store keeps it (domain shape; storage rows stay private to storage/). The
 * vocabulary fields stay strings: a row is not re-validated on read, and a reader that needs the
 * narrow type checks it with isMemoryType, isScope or isTrustLevel.
 */
export interface StoredMemory {
  readonly id: string;
  readonly project_id: string;
  readonly namespace: string;
  readonly agent_id: string;
  readonly content: string;
  readonly memory_type: string;
  readonly scope: string;
  readonly trust_level: string;
  readonly metadata: Record<string, unknown>;
  readonly content_flags: string[];
  readonly shared_with: string[];
  readonly is_deprecated: boolean;
  readonly superseded_by: string | null;
  readonly deprecation_reason: string | null;
  readonly session_id: string | null;
  readonly sequence_number: number | null;
  readonly entity_id: string | null;
  readonly error_pattern: string | null;
  readonly source_trajectory_id: string | null;
  readonly integrity_hash: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}
