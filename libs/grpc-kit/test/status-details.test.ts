import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import {
  InvalidArgumentError,
  PermissionDeniedError,
  RateLimitedError,
  SecurityRejectedError,
} from '@engram/errors';
import { decodeStatusDetails, toStatus } from '../src/index.ts';

function asServiceError(st: ReturnType<typeof toStatus>): ServiceError {
  return Object.assign(new Error(st.details ?? ''), {
    code: st.code,
    details: st.details ?? '',
    metadata: st.metadata ?? new Metadata(),
  });
}

describe('domain errors -> gRPC status with google.rpc details', () => {
  it('carries field violations and the reason of a validation error', () => {
    const st = toStatus(
      new InvalidArgumentError('bad', [{ field: 'content', description: 'too long', reason: 'TOO_LONG' }]),
    );
    assert.equal(st.code, Status.INVALID_ARGUMENT);
    const d = decodeStatusDetails(asServiceError(st));
    assert.equal(d.reason, 'VALIDATION_FAILED');
    assert.deepEqual(d.fieldViolations, [{ field: 'content', description: 'too long', reason: 'TOO_LONG' }]);
  });

  it('carries detections of a security rejection', () => {
    const st = toStatus(
      new SecurityRejectedError('rejected', [
        { category: 'secrets', type: 'api_key', action: 'reject', stage: 2 },
      ]),
    );
    assert.equal(st.code, Status.FAILED_PRECONDITION);
    const d = decodeStatusDetails(asServiceError(st));
    assert.equal(d.reason, 'SECURITY_REJECTED');
    assert.equal(d.detections[0]?.type, 'api_key');
  });

  it('maps permission and rate-limit errors to their codes', () => {
    assert.equal(toStatus(new PermissionDeniedError('no', 'AGENT_MISMATCH')).code, Status.PERMISSION_DENIED);
    assert.equal(toStatus(new RateLimitedError('slow down', 1500)).code, Status.RESOURCE_EXHAUSTED);
  });

  it('never sends the text of an unexpected error', () => {
    const st = toStatus(new Error('relation "secret_table" does not exist at /srv/app.ts:12'));
    assert.equal(st.code, Status.INTERNAL);
    assert.equal(st.details, 'internal error');
  });

  it('classifies a database that is down as UNAVAILABLE', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.equal(toStatus(refused).code, Status.UNAVAILABLE);
    const wrapped = new Error('query failed', {
      cause: Object.assign(new Error('terminating'), { code: '57P01' }),
    });
    assert.equal(toStatus(wrapped).code, Status.UNAVAILABLE);
  });

  it('passes a status relayed from another service through, except internal text', () => {
    const remote = asServiceError(toStatus(new PermissionDeniedError('nope', 'SCOPE_FORBIDDEN')));
    const relayed = toStatus(remote);
    assert.equal(relayed.code, Status.PERMISSION_DENIED);
    assert.equal(decodeStatusDetails(asServiceError(relayed)).reason, 'SCOPE_FORBIDDEN');
    const internal = toStatus(
      Object.assign(new Error('x'), {
        code: Status.INTERNAL,
        details: 'stack at x.ts:1',
        metadata: new Metadata(),
      }),
    );
    assert.equal(internal.details, 'internal error');
  });
});
