import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '@engram/testing';
import { add, integrityFailures, knexOf, tamper } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

describe('INTEGRITY_FAILED from reads on a read-only DATABASE_READ_URL (postgres)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let t: TestEngram;

  before(async () => {
    db = await createTestDatabase();
    const readOnly = `${db.url}?options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    t = await startTestEngram('postgres', { DATABASE_URL: db.url, DATABASE_READ_URL: readOnly });
  });
  after(async () => {
    await t?.stop();
    await db?.drop();
  });

  it('reads run on the read-only connection, and the drop is still committed on the primary', async () => {
    const { read } = t.engram.db;
    await assert.rejects(
      read.raw(
        `insert into audit_events (event_id, event_type, project_id) values (gen_random_uuid(), 'X', 'p')`,
      ),
      /read-only transaction/,
    );
    const id = await add(t.admin, { content: 'Replica read target.', agent_id: 'reader' });
    await tamper(knexOf(t), id, 'content');
    const got = await t.admin.get(`/memories/${id}?agent_id=reader`);
    assert.equal(got.status, 404, got.text);
    const timeline = await t.admin.get('/memories/typed/episodic/session/none?agent_id=reader');
    assert.equal(timeline.status, 200);
    const failures = await integrityFailures(knexOf(t), id);
    assert.equal(failures.length, 1);
    assert.equal(failures[0]!.details.route, 'get');
    // The event is visible to the security audit route, which itself reads the read connection.
    const audit = await t.admin.get<{ events: { memory_id: string; event_type: string }[] }>(
      `/security/audit?event_type=INTEGRITY_FAILED&memory_id=${id}`,
    );
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(
      audit.body.events.map((e) => [e.event_type, e.memory_id]),
      [['INTEGRITY_FAILED', id]],
    );
  });
});
