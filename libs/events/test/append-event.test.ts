import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import { appendEvent, AUDIT_EVENT_TYPES, InvalidAuditEventError } from '../src/index.ts';
import { ENGINES, openMigrated } from './support/databases.ts';

for (const engine of ENGINES) {
  describe(`appendEvent on ${engine}`, function () {
    this.timeout(60_000);
    let db: Database;

    before(async () => {
      db = await openMigrated(engine);
    });
    beforeEach(async () => {
      await db.knex('audit_events').delete();
    });
    after(async () => {
      await db.close();
    });

    const count = async () => Number((await db.knex('audit_events').count({ n: '*' }))[0]!.n);

    it('commits with the transaction it was written in and returns the stored record', async () => {
      const before = Date.now();
      const record = await db.knex.transaction(async (trx) => {
        await trx.raw('select 1'); // the change the event describes would be written here
        return appendEvent(trx, {
          eventType: AUDIT_EVENT_TYPES.KEY_CREATED,
          projectId: 'team.alpha',
          agentId: 'agent-1',
          apiKeyId: 'key-9',
          details: { key_id: 'key-2', scopes: ['read', 'write'], nested: { n: 1 } },
        });
      });
      assert.match(record.eventId, /^[0-9a-f-]{14}7/);
      assert.equal(record.eventType, 'KEY_CREATED');
      assert.equal(record.projectId, 'team.alpha');
      assert.equal(record.agentId, 'agent-1');
      assert.equal(record.memoryId, null);
      assert.equal(record.apiKeyId, 'key-9');
      assert.deepEqual(record.details, { key_id: 'key-2', scopes: ['read', 'write'], nested: { n: 1 } });
      assert.ok(record.createdAt instanceof Date && record.createdAt.getTime() >= before - 1000);
      assert.equal(record.publishedAt, null);
      assert.equal(record.publishAttempts, 0);
      const stored = await db.knex('audit_events').where('event_id', record.eventId).first();
      assert.deepEqual(stored.details, record.details);
    });

    it('disappears when the transaction rolls back', async () => {
      await assert.rejects(
        db.knex.transaction(async (trx) => {
          await appendEvent(trx, { eventType: 'MEMORY_DELETED', projectId: 'p', memoryId: 'm-1' });
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      assert.equal(await count(), 0);
    });

    it('refuses malformed events and details carrying content or secrets, storing nothing', async () => {
      const bad = [
        { eventType: 'has space', projectId: 'p' },
        { eventType: 'a.b', projectId: 'p' },
        { eventType: 'KEY_CREATED', projectId: '' },
        { eventType: 'MEMORY_CREATED', projectId: 'p', details: { content: 'the memory text' } },
        { eventType: 'KEY_CREATED', projectId: 'p', details: { key: { apiKey: 'egk_123' } } },
      ];
      for (const event of bad) {
        await assert.rejects(appendEvent(db.knex, event), InvalidAuditEventError, JSON.stringify(event));
      }
      assert.equal(await count(), 0);
    });
  });
}
