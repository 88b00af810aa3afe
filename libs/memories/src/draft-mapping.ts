import type { Deprecation, MemoryDraft, ProvenanceRecord } from '@engram/memory-model';
import type { Deprecation as DeprecationMessage } from '@engram/proto/engram/memory/v1/memory';
import {
  Provenance,
  type MemoryDraft as MemoryDraftMessage,
  type Provenance as ProvenanceMessage,
} from '@engram/proto/engram/memory/v1/memory_store';

// The write vocabulary to and from memory-store's MemoryWriterService messages: ingest-security
// sends drafts and deprecations, memory-store reads them. Field for field: the
// domain types use the proto field names; a missing optional field is null in the domain and absent
// on the wire. Each direction is listed in full so the round-trip test notices a forgotten field.

const orNull = <T>(v: T | undefined): T | null => v ?? null;
const orUndefined = <T>(v: T | null): T | undefined => v ?? undefined;

export function provenanceToProto(p: ProvenanceRecord): ProvenanceMessage {
  return {
    channel: p.channel,
    kind: p.kind,
    agent_id: p.agent_id,
    api_key_id: p.api_key_id,
    source_run_id: orUndefined(p.source_run_id),
    interaction_id: orUndefined(p.interaction_id),
    depth: p.depth,
    verdict: p.verdict,
    taint: [...p.taint],
    policy_version: p.policy_version,
  };
}

export function provenanceFromProto(p: ProvenanceMessage): ProvenanceRecord {
  return {
    channel: p.channel,
    kind: p.kind,
    agent_id: p.agent_id,
    api_key_id: p.api_key_id,
    source_run_id: orNull(p.source_run_id),
    interaction_id: orNull(p.interaction_id),
    depth: p.depth,
    verdict: p.verdict ?? {},
    taint: [...p.taint],
    policy_version: p.policy_version,
  };
}

export function draftToProto(d: MemoryDraft): MemoryDraftMessage {
  return {
    namespace: d.namespace,
    agent_id: d.agent_id,
    content: d.content,
    memory_type: d.memory_type,
    scope: d.scope,
    trust_level: d.trust_level,
    metadata: d.metadata,
    content_flags: [...d.content_flags],
    shared_with: [...d.shared_with],
    session_id: orUndefined(d.session_id),
    sequence_number: orUndefined(d.sequence_number),
    entity_id: orUndefined(d.entity_id),
    error_pattern: orUndefined(d.error_pattern),
    source_trajectory_id: orUndefined(d.source_trajectory_id),
    provenance: provenanceToProto(d.provenance),
  };
}

/**
 * Who wrote a draft whose provenance the caller left out (a direct MemoryWriterService call): the key
 * that made the call. ingest-security always sends the provenance it recorded.
 */
export interface ProvenanceDefaults {
  readonly api_key_id: string;
}

/**
 * The inverse of draftToProto. memory-store reads every draft with it; with `defaults`, a missing
 * provenance, or an empty channel, kind, agent or key in it, is filled in (channel internal, kind add,
 * the draft's agent, the calling key); without them a draft must carry its provenance.
 */
export function draftFromProto(d: MemoryDraftMessage, defaults?: ProvenanceDefaults): MemoryDraft {
  let provenance: ProvenanceRecord;
  if (defaults !== undefined) {
    const p = provenanceFromProto(d.provenance ?? Provenance.fromPartial({}));
    provenance = {
      ...p,
      channel: p.channel || 'internal',
      kind: p.kind || 'add',
      agent_id: p.agent_id || d.agent_id,
      api_key_id: p.api_key_id || defaults.api_key_id,
    };
  } else if (d.provenance === undefined) {
    throw new Error('a draft without provenance');
  } else {
    provenance = provenanceFromProto(d.provenance);
  }
  return {
    namespace: d.namespace,
    agent_id: d.agent_id,
    content: d.content,
    memory_type: d.memory_type,
    scope: d.scope,
    trust_level: d.trust_level,
    metadata: d.metadata ?? {},
    content_flags: [...d.content_flags],
    shared_with: [...d.shared_with],
    session_id: orNull(d.session_id),
    sequence_number: orNull(d.sequence_number),
    entity_id: orNull(d.entity_id),
    error_pattern: orNull(d.error_pattern),
    source_trajectory_id: orNull(d.source_trajectory_id),
    provenance,
  };
}

export function deprecationToProto(d: Deprecation): DeprecationMessage {
  return { memory_id: d.memory_id, superseded_by: d.superseded_by, reason: d.reason, agent_id: d.agent_id };
}

export function deprecationFromProto(d: DeprecationMessage): Deprecation {
  return { memory_id: d.memory_id, superseded_by: d.superseded_by, reason: d.reason, agent_id: d.agent_id };
}
