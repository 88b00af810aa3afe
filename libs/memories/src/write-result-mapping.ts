import type { WriteResult } from '@engram/memory-model';
import type { WriteResult as WriteResultMessage } from '@engram/proto/engram/memory/v1/memory';

// A write's outcome to and from the wire: ingest-security receives it from memory-store, and both
// ingest-security and ace-feedback answer it to their callers. The domain type and the message have
// the same fields, so one field-for-field copy serves both directions; typing it as each direction
// makes the type check fail when either side gains a field the other lacks, and the round-trip test
// in ingest-security notices a field the copy forgets.
function copyWriteResult(r: WriteResult & WriteResultMessage): WriteResult & WriteResultMessage {
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

export const writeResultToProto: (r: WriteResult) => WriteResultMessage = copyWriteResult;
export const writeResultFromProto: (r: WriteResultMessage) => WriteResult = copyWriteResult;
