import { InvalidArgumentError } from '@engram/errors';
import type { WriteRequest } from './write-request.ts';

/**
 * A row of another Engram's export, as the importer reads it: the fields a write takes, and the two
 * facts that refuse a row. An export row (the Memory message) is one as it stands.
 */
export interface ExportedRow extends WriteRequest {
  readonly memory_type: string;
  readonly scope: string;
  readonly trust_level: string;
  readonly namespace: string;
  readonly is_deprecated: boolean;
  readonly integrity_status?: string | undefined;
}

const blankToUndefined = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/**
 * The write an exported row asks for. What the source instance decided about the row (id, project,
 * signature, flags, timestamps, scores) is not carried over: the pipeline screens and labels it anew.
 * Refused: deprecated rows (importing would bring them back to life) and rows whose signature failed
 * at the source (importing would re-sign tampered content as genuine).
 */
export function importRequest(row: ExportedRow): WriteRequest {
  if (row.is_deprecated) {
    throw new InvalidArgumentError(
      'deprecated memories are not imported',
      [{ field: 'is_deprecated', description: 'must be false', reason: 'INVALID_VALUE' }],
      'DEPRECATED_NOT_IMPORTED',
    );
  }
  if (row.integrity_status === 'invalid') {
    throw new InvalidArgumentError(
      'a memory whose signature failed at the source is not imported',
      [{ field: 'integrity_status', description: 'must not be invalid', reason: 'INVALID_VALUE' }],
      'INTEGRITY_INVALID_AT_SOURCE',
    );
  }
  return {
    content: row.content,
    agent_id: row.agent_id,
    memory_type: blankToUndefined(row.memory_type),
    scope: blankToUndefined(row.scope),
    shared_with: row.shared_with,
    trust_level: blankToUndefined(row.trust_level),
    namespace: blankToUndefined(row.namespace),
    metadata: row.metadata,
    session_id: row.session_id,
    sequence_number: row.sequence_number,
    entity_id: row.entity_id,
    steps: row.steps,
    trigger_conditions: row.trigger_conditions,
    error_pattern: row.error_pattern,
    severity: row.severity,
    source_trajectory_id: row.source_trajectory_id,
  };
}
