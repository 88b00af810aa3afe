import type { StoredMemory } from '@engram/memory-model';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** Domain memory -> wire Memory. steps, trigger_conditions and severity live in metadata (spec). */
export function toProtoMemory(
  m: StoredMemory & { integrity_status?: string; integrity_format?: string },
): Memory {
  const severity = m.metadata.severity;
  return {
    id: m.id,
    project_id: m.project_id,
    namespace: m.namespace,
    agent_id: m.agent_id,
    content: m.content,
    memory_type: m.memory_type,
    scope: m.scope,
    trust_level: m.trust_level,
    metadata: m.metadata,
    content_flags: m.content_flags,
    shared_with: m.shared_with,
    is_deprecated: m.is_deprecated,
    superseded_by: m.superseded_by ?? undefined,
    deprecation_reason: m.deprecation_reason ?? undefined,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
    session_id: m.session_id ?? undefined,
    sequence_number: m.sequence_number ?? undefined,
    entity_id: m.entity_id ?? undefined,
    steps: strings(m.metadata.steps),
    trigger_conditions: strings(m.metadata.trigger_conditions),
    error_pattern: m.error_pattern ?? undefined,
    severity: typeof severity === 'string' ? severity : undefined,
    source_trajectory_id: m.source_trajectory_id ?? undefined,
    integrity_status: m.integrity_status,
    integrity_format: m.integrity_format,
  };
}
