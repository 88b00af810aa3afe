/**
 * Stage 1 limits. The three that are settings (CONTENT_MAX_LENGTH, METADATA_MAX_DEPTH,
 * METADATA_MAX_KEYS) arrive as WriteLimits; the rest are fixed by columns and the design.
 * Lengths are counted in Unicode code points unless stated otherwise.
 */
export interface WriteLimits {
  /** Maximum content length in code points (CONTENT_MAX_LENGTH, default 50000). */
  readonly contentMaxLength: number;
  /** Maximum metadata depth; the top-level object's values are depth 1 (METADATA_MAX_DEPTH, 5). */
  readonly metadataMaxDepth: number;
  /** Maximum number of metadata keys at all levels together (METADATA_MAX_KEYS, 50). */
  readonly metadataMaxKeys: number;
}

export const DEFAULT_WRITE_LIMITS: WriteLimits = Object.freeze({
  contentMaxLength: 50_000,
  metadataMaxDepth: 5,
  metadataMaxKeys: 50,
});

/** agent ids, namespace, shared_with entries, source_trajectory_id, and ids in general. */
export const ID_MAX_LENGTH = 128;
/** The session_id column. */
export const SESSION_ID_MAX_LENGTH = 64;
/** The entity_id column. */
export const ENTITY_ID_MAX_LENGTH = 128;
export const SHARED_WITH_MAX_ENTRIES = 100;
/** steps and trigger_conditions: entries per list, and code points per entry. */
export const LIST_MAX_ENTRIES = 100;
export const LIST_ENTRY_MAX_LENGTH = 2000;
export const ERROR_PATTERN_MAX_LENGTH = 2000;
export const SEVERITY_MAX_LENGTH = 32;
export const METADATA_KEY_MAX_LENGTH = 256;
/** A validation answer lists at most this many violations. */
export const MAX_VIOLATIONS = 20;
