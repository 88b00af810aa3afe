import type { StoredMemory } from '@engram/memory-model';

/** Columns every memory read selects (never the embedding or the tsvector). */
export const MEMORY_COLUMNS = [
  'id',
  'project_id',
  'namespace',
  'agent_id',
  'content',
  'memory_type',
  'scope',
  'trust_level',
  'metadata',
  'content_flags',
  'shared_with',
  'is_deprecated',
  'superseded_by',
  'deprecation_reason',
  'session_id',
  'sequence_number',
  'entity_id',
  'error_pattern',
  'source_trajectory_id',
  'integrity_hash',
  'created_at',
  'updated_at',
] as const;

/** MEMORY_COLUMNS qualified by the table (or alias) a read names, for reads that join or compute. */
export function memoryColumns(table = 'memories'): string[] {
  return MEMORY_COLUMNS.map((c) => `${table}.${c}`);
}

/** The columns whose driver value is looser than the stored memory's (JSON text, NULL arrays, bigint text, timestamps as text). */
interface DriverValues {
  metadata: Record<string, unknown> | string | null;
  content_flags: string[] | null;
  shared_with: string[] | null;
  sequence_number: string | number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A memory row as PostgreSQL or PGlite returns it: StoredMemory's fields, some in their driver form. */
export type MemoryRow = Omit<StoredMemory, keyof DriverValues> & DriverValues;

// Every field of StoredMemory is a selected column and every selected column a field: a field added
// to one and not the other fails the type check here.
type Missing = Exclude<keyof StoredMemory, (typeof MEMORY_COLUMNS)[number]>;
type Extra = Exclude<(typeof MEMORY_COLUMNS)[number], keyof StoredMemory>;
const columnsMatch: [Missing, Extra] extends [never, never] ? true : { missing: Missing; extra: Extra } =
  true;
void columnsMatch;

export function memoryFromRow(r: MemoryRow): StoredMemory {
  return {
    id: r.id,
    project_id: r.project_id,
    namespace: r.namespace,
    agent_id: r.agent_id,
    content: r.content,
    memory_type: r.memory_type,
    scope: r.scope,
    trust_level: r.trust_level,
    metadata:
      typeof r.metadata === 'string'
        ? (JSON.parse(r.metadata) as Record<string, unknown>)
        : (r.metadata ?? {}),
    content_flags: r.content_flags ?? [],
    shared_with: r.shared_with ?? [],
    is_deprecated: r.is_deprecated,
    superseded_by: r.superseded_by,
    deprecation_reason: r.deprecation_reason,
    session_id: r.session_id,
    sequence_number: r.sequence_number === null ? null : Number(r.sequence_number),
    entity_id: r.entity_id,
    error_pattern: r.error_pattern,
    source_trajectory_id: r.source_trajectory_id,
    integrity_hash: r.integrity_hash,
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
  };
}
