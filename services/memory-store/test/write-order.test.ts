import assert from 'node:assert/strict';
import { UnavailableError } from '@engram/errors';
import { dedupLockOrder, type DedupKey } from '../src/domain/lock-order.ts';
import { retryWriteConflicts, writeConflictOf, type WriteConflict } from '../src/storage/write-retry.ts';

const key = (contentKey: string, over: Partial<DedupKey> = {}): DedupKey => ({
  projectId: 'p',
  namespace: 'default',
  agentId: 'a',
  scope: 'agent-private',
  memoryType: 'standard',
  contentKey,
  ...over,
});

/** An error as node-postgres reports an aborted transaction. */
const pgError = (code: string) => Object.assign(new Error(`aborted (${code})`), { code });

describe('memory-store write order and retry', () => {
  it('orders the rows of a batch by the whole deduplication key, whatever order the caller sent', () => {
    const keys = [
      key('c'),
      key('a', { agentId: 'b' }),
      key('b'),
      key('a', { projectId: 'o' }),
      key('a'),
      key('a', { scope: 'global' }),
    ];
    const order = dedupLockOrder(keys);
    assert.deepEqual(order, [3, 4, 2, 0, 5, 1]);
    // Two writers holding the same keys in opposite orders lock them in the same order.
    const reversed = [...keys].reverse();
    assert.deepEqual(
      dedupLockOrder(reversed).map((i) => reversed[i]),
      order.map((i) => keys[i]),
    );
  });

  it('keeps equal keys in caller order, so the first of two identical items is the one created', () => {
    assert.deepEqual(dedupLockOrder([key('b'), key('a'), key('b'), key('a')]), [1, 3, 0, 2]);
  });

  it('runs a transaction again after a deadlock or a serialization failure, and counts each retry', async () => {
    const seen: WriteConflict[] = [];
    let runs = 0;
    const out = await retryWriteConflicts(
      () => {
        runs += 1;
        if (runs === 1) return Promise.reject(pgError('40P01'));
        if (runs === 2) return Promise.reject(new Error('wrapped', { cause: pgError('40001') }));
        return Promise.resolve('committed');
      },
      { onRetry: (c) => void seen.push(c) },
    );
    assert.equal(out, 'committed');
    assert.deepEqual(seen, ['deadlock', 'serialization']);
  });

  it('after its last attempt answers UNAVAILABLE (retry later), never the database error', async () => {
    let runs = 0;
    await assert.rejects(
      retryWriteConflicts(
        () => {
          runs += 1;
          return Promise.reject(pgError('40P01'));
        },
        { attempts: 3 },
      ),
      (err: unknown) => err instanceof UnavailableError && err.code === 'UNAVAILABLE',
    );
    assert.equal(runs, 3);
  });

  it('does not run again after any other error', async () => {
    let runs = 0;
    const unique = pgError('23505');
    await assert.rejects(
      retryWriteConflicts(() => {
        runs += 1;
        return Promise.reject(unique);
      }),
      (err: unknown) => err === unique,
    );
    assert.equal(runs, 1);
    assert.equal(writeConflictOf(unique), undefined);
  });
});
