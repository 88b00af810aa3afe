/** A write as every channel hands it to the pipeline: the shared vocabulary of @engram/memory-model. */
export type { WriteRequest } from '@engram/memory-model';

/** Where a write came from, for provenance. */
export interface WriteOrigin {
  readonly channel: 'rest' | 'grpc' | 'mcp' | 'cli' | 'internal';
  readonly kind: 'add' | 'typed' | 'delta' | 'reflection' | 'run_reflection' | 'consolidation' | 'import';
  readonly depth: number;
  readonly sourceRunId?: string | undefined;
  readonly interactionId?: string | undefined;
}
