import type { WriteResult } from '@engram/memory-model';
import type { WriteResult as WriteResultMessage } from '@engram/proto/engram/memory/v1/memory';

// A write's outcome to and from the wire: ingest-security receives it from memory-store, and both
// ingest-security and ace-feedback answer it to their callers. Field for field, so the round-trip test
// in ingest-security notices a forgotten field.

export function writeResultToProto(r: WriteResult): WriteResultMessage {
  return {
    id: r.id,
    deduplicated: r.deduplicated,
    scope: r.scope,
    content_flags: [...r.content_flags],
    trust_level: r.trust_level,
    memory_type: r.memory_type,
    namespace: r.namespace,
  };
}

export function writeResultFromProto(r: WriteResultMessage): WriteResult {
  return {
    id: r.id,
    deduplicated: r.deduplicated,
    scope: r.scope,
    content_flags: [...r.content_flags],
    trust_level: r.trust_level,
    memory_type: r.memory_type,
    namespace: r.namespace,
  };
}
