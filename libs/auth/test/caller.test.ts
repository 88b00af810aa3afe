import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { forwardMetadata, INTERNAL_TOKEN_HEADER } from '@engram/grpc-kit';
import { callerMetadata, callerOf } from '../src/caller.ts';

describe('the forwarded caller', () => {
  it('carries exactly what forwardMetadata passes on, as plain strings', () => {
    const incoming = new Metadata();
    incoming.set('authorization', 'Bearer key-1');
    incoming.set('x-request-id', 'request-1');
    incoming.set('x-engram-channel', 'mcp');
    incoming.set('x-engram-channel-proof', 'proof-1');
    incoming.set('idempotency-key', 'not forwarded');
    const caller = callerOf(incoming);
    assert.deepEqual(caller, {
      authorization: 'Bearer key-1',
      requestId: 'request-1',
      channel: 'mcp',
      channelProof: 'proof-1',
    });
    assert.deepEqual(
      callerMetadata(caller, 'internal-token').getMap(),
      forwardMetadata(incoming, 'internal-token').getMap(),
    );
    assert.equal(callerMetadata(caller, 'internal-token').get(INTERNAL_TOKEN_HEADER)[0], 'internal-token');
  });

  it('a caller without a key forwards no authorization', () => {
    const caller = callerOf(new Metadata());
    assert.deepEqual(caller, {});
    assert.deepEqual(callerMetadata(caller).getMap(), {});
  });
});
