import assert from 'node:assert/strict';
import type { WriteRequest } from '@engram/memory-model';
import { AddMemoryRequest, IngestInternalRequest } from '@engram/proto/engram/ingest/v1/ingest';
import { Deprecation as DeprecationMessage } from '@engram/proto/engram/memory/v1/memory';
import {
  internalWriteFromProto,
  internalWriteToProto,
  writeRequestToProto,
} from '../src/clients/ingest-mapping.ts';
import type { InternalWrite } from '../src/domain/ports.ts';

/** Every field set, each to a value no other field has, so a swapped or dropped field shows. */
const fullItem: WriteRequest = {
  content: 'Retry the upload with backoff.',
  agent_id: 'agent-1',
  memory_type: 'procedural',
  scope: 'agent-shared',
  shared_with: ['agent-2'],
  trust_level: 'internal',
  namespace: 'ns-1',
  metadata: { tags: ['upload'], nested: { depth: 2 } },
  session_id: 'session-1',
  sequence_number: 4,
  entity_id: 'entity-1',
  steps: ['wait', 'retry'],
  trigger_conditions: ['upload fails'],
  error_pattern: 'HTTP 503',
  severity: 'high',
  source_trajectory_id: 'trajectory-1',
};

const fullWrite: InternalWrite = {
  items: [fullItem],
  kind: 'run_reflection',
  source_run_id: 'run-1',
  depth: 2,
  atomic: true,
  deprecations: [
    {
      memory_id: '0190a000-0000-7000-8000-000000000001',
      superseded_by: '0190a000-0000-7000-8000-000000000002',
      reason: 'consolidated',
      agent_id: 'agent-1',
    },
  ],
};

const sortedKeys = (o: object) => Object.keys(o).sort();

describe('write pipeline mapping (domain <-> IngestInternal)', () => {
  it('a full internal write comes back unchanged from protobuf and from the wire', () => {
    assert.deepEqual(internalWriteFromProto(internalWriteToProto(fullWrite)), fullWrite);
    const wire = IngestInternalRequest.decode(
      IngestInternalRequest.encode(internalWriteToProto(fullWrite)).finish(),
    );
    assert.deepEqual(internalWriteFromProto(wire), fullWrite);
  });

  it('maps every field of the request, item and deprecation messages, and no other', () => {
    // A field added to the proto and forgotten here (or a domain field the proto lacks) fails this.
    const message = internalWriteToProto(fullWrite);
    assert.deepEqual(sortedKeys(message), sortedKeys(IngestInternalRequest.fromPartial({})));
    assert.deepEqual(sortedKeys(fullWrite), sortedKeys(IngestInternalRequest.fromPartial({})));
    assert.deepEqual(sortedKeys(writeRequestToProto(fullItem)), sortedKeys(AddMemoryRequest.fromPartial({})));
    assert.deepEqual(sortedKeys(fullItem), sortedKeys(AddMemoryRequest.fromPartial({})));
    assert.deepEqual(sortedKeys(message.deprecations[0]!), sortedKeys(DeprecationMessage.fromPartial({})));
  });
});
