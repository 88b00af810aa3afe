import assert from 'node:assert/strict';
import { connection, engramOk, ndjson, NO_RATE_LIMITS, seed, startCli, waitFor } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface Event {
  event_id: string;
  event_type: string;
  agent_id: string;
  memory_id?: string;
  created_at: string;
  details: Record<string, unknown>;
}

describe('engram audit (compiled CLI, gRPC, embedded Engram)', function () {
  this.timeout(60_000);
  let t: TestEngram;
  let env: Record<string, string>;

  before(async () => {
    t = await startTestEngram('pglite', NO_RATE_LIMITS);
    env = connection(t);
  });
  after(() => t?.stop());

  it('tail prints the last N events of the writes, oldest first, and exits', async () => {
    const ids = await seed(t.admin, 'tailed', 5, 'Audited fact');
    const r = await engramOk(['audit', 'tail', '-n', '5', '--type', 'MEMORY_CREATED', '--json'], env);
    const events = ndjson<Event>(r.stdout);
    assert.deepEqual(events.map((e) => e.memory_id).sort(), [...ids].sort());
    assert.ok(events.every((e) => e.event_type === 'MEMORY_CREATED' && e.agent_id === 'tailed'));
    const times = events.map((e) => e.created_at);
    assert.deepEqual(times, [...times].sort(), 'oldest first');

    const text = await engramOk(['audit', 'tail', '-n', '2', '--agent', 'tailed'], env);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(
      lines[1]!,
      new RegExp(`^\\S+Z  MEMORY_CREATED +agent=tailed  memory=${ids[4]}  key=\\S+  \\{.*\\}$`),
    );
    assert.ok(!text.stdout.includes('Audited fact'), 'no memory content in the audit log');
  });

  it('tail -f prints each new event once as it arrives, until Ctrl-C (exit 0)', async () => {
    await seed(t.admin, 'before-follow', 1, 'Already there');
    const follow = startCli(['audit', 'tail', '-f', '-n', '1', '--interval', '1', '--json'], env);
    try {
      // The first listing is printed: from here on, every event is new.
      await waitFor(
        () => follow.stdout().trim().split('\n').length >= 1 && follow.stdout().endsWith('\n'),
        20_000,
        'the first listing',
      );
      const before = ndjson<Event>(follow.stdout());
      assert.equal(before.length, 1);
      const ids = [
        ...(await seed(t.admin, 'followed', 3, 'Followed fact')),
        ...(await seed(t.admin, 'followed', 2, 'Later fact')),
      ];
      await waitFor(() => ids.every((id) => follow.stdout().includes(id)), 20_000, 'the new events');
      // Another round of polling: nothing is printed twice.
      await new Promise((r) => setTimeout(r, 2_500));
      const events = ndjson<Event>(follow.stdout()).filter((e) => e.agent_id === 'followed');
      assert.deepEqual(events.map((e) => e.memory_id).sort(), [...ids].sort());
      assert.equal(
        new Set(ndjson<Event>(follow.stdout()).map((e) => e.event_id)).size,
        ndjson(follow.stdout()).length,
      );
    } finally {
      follow.child.kill('SIGINT');
    }
    const end = await follow.done;
    assert.equal(end.code, 0, end.stderr);
    assert.equal(end.stderr, '');
  });

  it('flagged lists a write whose content was flagged', async () => {
    const added = await engramOk(
      ['memories', 'add', 'Reach the on-call lead at alice.oncall@example.com', '--agent', 'flagger'],
      env,
    );
    const id = /^added ([0-9a-f-]{36}) .*; flagged: pii:email\n$/.exec(added.stdout)?.[1];
    assert.ok(id, added.stdout);
    await engramOk(['memories', 'add', 'Nothing to see here', '--agent', 'flagger'], env);
    const r = await engramOk(['audit', 'flagged'], env);
    const [header, ...rows] = r.stdout.trim().split('\n');
    assert.equal(header, 'id\tcreated_at\tagent\ttype\tflags\tintegrity');
    assert.deepEqual(
      rows.map((l) => l.split('\t')).map((c) => [c[0], c[2], c[4], c[5]]),
      [[id, 'flagger', 'pii:email', 'valid']],
    );
    assert.ok(!r.stdout.includes('alice.oncall'), 'the list shows labels, not content');
    const json = JSON.parse((await engramOk(['audit', 'flagged', '--json'], env)).stdout) as {
      memories: { id: string }[];
    };
    assert.deepEqual(
      json.memories.map((m) => m.id),
      [id],
    );
  });
});
