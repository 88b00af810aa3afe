import assert from 'node:assert/strict';
import {
  AddControlRequest,
  AddEpisodicRequest,
  AddMemoryRequest,
  AddProceduralRequest,
  AddSemanticRequest,
} from '@engram/proto/engram/ingest/v1/ingest';
import { validateWrite } from '../../src/index.ts';
import { codes, limits } from './helpers.ts';

// The decoded protobuf requests are what the ingest handlers pass in: their defaults (empty lists,
// undefined optionals, a Struct decoded to a plain object) must not trip stage 1.
describe('stage 1: decoded protobuf write requests', () => {
  const base = { content: 'payments deploy needs flag X', agent_id: 'agent-1' };

  it('accepts minimal requests of every write RPC', () => {
    assert.deepEqual(validateWrite(AddMemoryRequest.fromPartial(base), limits), []);
    assert.deepEqual(
      validateWrite(AddEpisodicRequest.fromPartial({ ...base, session_id: 's1' }), limits),
      [],
    );
    assert.deepEqual(validateWrite(AddSemanticRequest.fromPartial(base), limits), []);
    assert.deepEqual(validateWrite(AddProceduralRequest.fromPartial(base), limits), []);
    assert.deepEqual(validateWrite(AddControlRequest.fromPartial(base), limits), []);
  });

  it('validates a Struct that went through the wire', () => {
    const req = AddMemoryRequest.fromPartial({ ...base, metadata: { a: { b: 'x\u0000' } } });
    const decoded = AddMemoryRequest.decode(AddMemoryRequest.encode(req).finish());
    assert.deepEqual(codes(validateWrite(decoded, limits)), ['metadata.a.b:CONTROL_CHARACTER']);
  });

  it('refuses the empty content and agent of a default request', () => {
    assert.deepEqual(codes(validateWrite(AddMemoryRequest.fromPartial({}), limits)), [
      'content:REQUIRED',
      'agent_id:REQUIRED',
    ]);
  });
});
