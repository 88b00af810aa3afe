import assert from 'node:assert/strict';
import { WriteGroup } from '../src/storage/write-group.ts';

/** A store that records the groups it is given and answers each after `release()`. */
class Recorder {
  readonly groups: number[][] = [];
  readonly alone: number[] = [];
  private releases: (() => void)[] = [];
  failGroups = false;

  run = async (items: readonly number[]): Promise<string[]> => {
    this.groups.push([...items]);
    await new Promise<void>((r) => this.releases.push(r));
    if (this.failGroups) throw new Error('the statement failed');
    return items.map((i) => `stored ${i}`);
  };

  one = async (item: number): Promise<string> => {
    this.alone.push(item);
    await new Promise<void>((r) => this.releases.push(r));
    if (item < 0) throw new Error(`item ${item} is invalid`);
    return `stored ${item}`;
  };

  /** Lets every call waiting now finish, then lets their continuations run. */
  async release(): Promise<void> {
    const waiting = this.releases;
    this.releases = [];
    for (const r of waiting) r();
    await new Promise((r) => setImmediate(r));
  }
}

/** A write's outcome as text: its result, or the message it failed with. */
const outcome = (p: Promise<string>) =>
  p.then(
    (v) => v,
    (e: Error) => e.message,
  );

describe('memory-store group commit (WriteGroup)', () => {
  it('runs the first write at once and alone, and groups what arrives while it runs', async () => {
    const store = new Recorder();
    const sizes: number[] = [];
    const group = new WriteGroup(store.run, store.one, {
      maxInFlight: 1,
      maxSize: 3,
      onGroup: (n) => sizes.push(n),
    });
    const first = group.write(1);
    assert.deepEqual(store.alone, [1], 'a lone write does not wait for company');
    const later = [2, 3, 4, 5, 6].map((i) => group.write(i));
    assert.deepEqual(store.groups, [], 'nothing else runs while the first is in flight (one at a time)');
    await store.release();
    assert.equal(await first, 'stored 1');
    assert.deepEqual(store.groups, [[2, 3, 4]], 'the next group holds what queued, at most maxSize');
    await store.release();
    assert.deepEqual(
      store.groups,
      [
        [2, 3, 4],
        [5, 6],
      ],
      'then the rest, in the order it came',
    );
    assert.deepEqual(store.alone, [1]);
    await store.release();
    assert.deepEqual(await Promise.all(later), ['stored 2', 'stored 3', 'stored 4', 'stored 5', 'stored 6']);
    assert.deepEqual(sizes, [1, 3, 2]);
  });

  it('writes a failed group again one write at a time (one statement at a time), so only the write at fault fails', async () => {
    const store = new Recorder();
    const group = new WriteGroup(store.run, store.one, { maxInFlight: 1, maxSize: 8 });
    const first = group.write(0);
    const rest = [1, -2, 3].map((i) => outcome(group.write(i)));
    store.failGroups = true;
    await store.release(); // the first write finishes; the group of three starts
    assert.equal(await first, 'stored 0');
    assert.deepEqual(store.groups, [[1, -2, 3]]);
    await store.release(); // the group fails; its writes run alone, one after another
    assert.deepEqual(store.alone, [0, 1]);
    await store.release();
    assert.deepEqual(store.alone, [0, 1, -2]);
    await store.release();
    assert.deepEqual(store.alone, [0, 1, -2, 3]);
    await store.release();
    assert.deepEqual(await Promise.all(rest), ['stored 1', 'item -2 is invalid', 'stored 3']);
  });

  it('fails a group and the queue behind it at once, without writing them again, when the store is unavailable', async () => {
    const store = new Recorder();
    const seen: unknown[] = [];
    const group = new WriteGroup(store.run, store.one, {
      maxInFlight: 1,
      maxSize: 2,
      unavailable: (err) => (seen.push(err), true),
    });
    const first = group.write(0);
    const rest = [1, 2, 3, 4].map((i) => outcome(group.write(i)));
    store.failGroups = true;
    await store.release();
    assert.equal(await first, 'stored 0');
    assert.deepEqual(store.groups, [[1, 2]], 'a group of two runs; two writes wait behind it');
    await store.release(); // the group fails as an outage would fail each write
    assert.deepEqual(await Promise.all(rest), Array(4).fill('the statement failed'));
    assert.deepEqual(store.alone, [0], 'no write is sent again');
    assert.deepEqual(store.groups, [[1, 2]], 'and the queued writes are not sent into the outage');
    assert.equal(seen.length, 1);
  });

  it('keeps up to maxInFlight groups running at once (a pool of connections)', async () => {
    const store = new Recorder();
    const group = new WriteGroup(store.run, store.one, { maxInFlight: 2, maxSize: 10 });
    const writes = [1, 2, 3, 4, 5].map((i) => group.write(i));
    assert.deepEqual(store.alone, [1, 2], 'two writes in flight at once, each alone');
    await store.release();
    assert.deepEqual(store.groups, [[3, 4, 5]]);
    await store.release();
    assert.deepEqual(
      await Promise.all(writes),
      [1, 2, 3, 4, 5].map((i) => `stored ${i}`),
    );
  });

  it('refuses settings that would never run a write', () => {
    const store = new Recorder();
    assert.throws(() => new WriteGroup(store.run, store.one, { maxInFlight: 0, maxSize: 4 }));
    assert.throws(() => new WriteGroup(store.run, store.one, { maxInFlight: 1, maxSize: 0 }));
  });
});
