import type { Deprecation, WriteRequest } from '@engram/memory-model';
import type { AddMemoryRequest, IngestInternalRequest } from '@engram/proto/engram/ingest/v1/ingest';
import type { Deprecation as DeprecationMessage } from '@engram/proto/engram/memory/v1/memory';
import type { InternalWrite, InternalWriteKind } from '../domain/ports.ts';

// The pipeline's vocabulary to and from ingest-security's IngestInternal messages, field for field
// (the domain types use the proto field names). Each direction is listed in full so the round-trip
// test notices a forgotten field.

export function writeRequestToProto(w: WriteRequest): AddMemoryRequest {
  return {
    content: w.content,
    agent_id: w.agent_id,
    memory_type: w.memory_type,
    scope: w.scope,
    shared_with: [...w.shared_with],
    trust_level: w.trust_level,
    namespace: w.namespace,
    metadata: w.metadata,
    session_id: w.session_id,
    sequence_number: w.sequence_number,
    entity_id: w.entity_id,
    steps: [...w.steps],
    trigger_conditions: [...w.trigger_conditions],
    error_pattern: w.error_pattern,
    severity: w.severity,
    source_trajectory_id: w.source_trajectory_id,
  };
}

export function writeRequestFromProto(m: AddMemoryRequest): WriteRequest {
  return {
    content: m.content,
    agent_id: m.agent_id,
    memory_type: m.memory_type,
    scope: m.scope,
    shared_with: [...m.shared_with],
    trust_level: m.trust_level,
    namespace: m.namespace,
    metadata: m.metadata,
    session_id: m.session_id,
    sequence_number: m.sequence_number,
    entity_id: m.entity_id,
    steps: [...m.steps],
    trigger_conditions: [...m.trigger_conditions],
    error_pattern: m.error_pattern,
    severity: m.severity,
    source_trajectory_id: m.source_trajectory_id,
  };
}

export function deprecationToProto(d: Deprecation): DeprecationMessage {
  return { memory_id: d.memory_id, superseded_by: d.superseded_by, reason: d.reason, agent_id: d.agent_id };
}

export function deprecationFromProto(d: DeprecationMessage): Deprecation {
  return { memory_id: d.memory_id, superseded_by: d.superseded_by, reason: d.reason, agent_id: d.agent_id };
}

export function internalWriteToProto(w: InternalWrite): IngestInternalRequest {
  return {
    items: w.items.map(writeRequestToProto),
    kind: w.kind,
    source_run_id: w.source_run_id,
    depth: w.depth,
    atomic: w.atomic,
    deprecations: w.deprecations.map(deprecationToProto),
  };
}

/** The inverse of internalWriteToProto (ingest-security reads the request itself); for the round trip. */
export function internalWriteFromProto(m: IngestInternalRequest): InternalWrite {
  return {
    items: m.items.map(writeRequestFromProto),
    kind: m.kind as InternalWriteKind,
    source_run_id: m.source_run_id,
    depth: m.depth,
    atomic: m.atomic,
    deprecations: m.deprecations.map(deprecationFromProto),
  };
}
