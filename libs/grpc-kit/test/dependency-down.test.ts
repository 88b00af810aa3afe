import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { decodeStatusDetails, toStatus } from '../src/index.ts';

function reasonOf(err: unknown): { code: Status; reason: string | undefined } {
  const st = toStatus(err);
  const asError: ServiceError = Object.assign(new Error(st.details ?? ''), {
    code: st.code,
    details: st.details ?? '',
    metadata: st.metadata ?? new Metadata(),
  });
  return { code: st.code, reason: decodeStatusDetails(asError).reason };
}

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
const DOWN = { code: Status.UNAVAILABLE, reason: 'DEPENDENCY_UNAVAILABLE' };

describe('a database that is down, starting, full or broken under a query -> UNAVAILABLE DEPENDENCY_UNAVAILABLE', () => {
  it('names the reason, so the gateway answers 503 DEPENDENCY_UNAVAILABLE rather than UPSTREAM_UNAVAILABLE', () => {
    assert.deepEqual(reasonOf(coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')), DOWN);
    assert.deepEqual(reasonOf(coded('the database system is starting up', '57P03')), DOWN);
    assert.deepEqual(reasonOf(coded('terminating connection due to administrator command', '57P01')), DOWN);
  });

  it('covers node-postgres connection failures that carry no code', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
      'Query read timeout',
      'timeout expired',
    ]) {
      assert.deepEqual(reasonOf(new Error(message)), DOWN, message);
      assert.deepEqual(reasonOf(new Error('insert failed', { cause: new Error(message) })), DOWN, message);
      // knex puts the statement in front of the driver's message
      assert.deepEqual(
        reasonOf(new Error(`insert into memories (id) values ($1) - ${message}`)),
        DOWN,
        message,
      );
    }
  });

  it('covers a full disk, too many connections, a statement timeout and a read-only database', () => {
    assert.deepEqual(reasonOf(coded('could not extend file: No space left on device', '53100')), DOWN);
    assert.deepEqual(reasonOf(coded('sorry, too many clients already', '53300')), DOWN);
    assert.deepEqual(reasonOf(coded('canceling statement due to statement timeout', '57014')), DOWN);
    assert.deepEqual(reasonOf(coded('cannot execute INSERT in a read-only transaction', '25006')), DOWN);
  });

  it('leaves other errors internal, and a similar message with a code alone', () => {
    assert.equal(toStatus(new Error('Connection terminated unexpectedly!')).code, Status.INTERNAL);
    assert.equal(toStatus(coded('Connection terminated unexpectedly', 'XX000')).code, Status.INTERNAL);
  });
});
