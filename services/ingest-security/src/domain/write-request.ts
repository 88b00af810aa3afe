/** A write as every channel hands it to the pipeline (the AddMemoryRequest shape, snake_case). */
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

/** Where a write came from, for provenance. */
export interface WriteOrigin {
  readonly channel: 'rest' | 'grpc' | 'mcp' | 'cli' | 'internal';
  readonly kind: 'add' | 'typed' | 'delta' | 'reflection' | 'run_reflection' | 'consolidation' | 'import';
  readonly depth: number;
  readonly sourceRunId?: string | undefined;
  readonly interactionId?: string | undefined;
}
