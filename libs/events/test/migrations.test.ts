import assert from 'node:assert/strict';
import { migrateLatest, migrateRollbackAll, type Database } from '@engram/db';
import { eventsMigrations } from '../src/index.ts';
import { ENGINES, openMigrated } from './support/databases.ts';

async function tableExists(db: Database): Promise<boolean> {
  const r = await db.knex.raw<{ rows: { t: string | null }[] }>(
    `select to_regclass('public.audit_events')::text as t`,
  );
  return r.rows[0]?.t === 'audit_events';
}

for (const engine of ENGINES) {
  describe(`events migrations on ${engine}`, function () {
    this.timeout(60_000);
    let db: Database;

    before(async () => {
      db = await openMigrated(engine);
    });
    after(async () => {
      await migrateLatest(db, eventsMigrations); // leave the schema in place for the other suites
      await db.close();
    });

    it('create audit_events with its columns, defaults and indexes', async () => {
      assert.ok(await tableExists(db));
      const cols = await db.knex.raw<{
        rows: { column_name: string; data_type: string; is_nullable: string }[];
      }>(
        `select column_name, data_type, is_nullable from information_schema.columns
          where table_name = 'audit_events' order by ordinal_position`,
      );
      assert.deepEqual(
        cols.rows.map((c) => `${c.column_name} ${c.data_type} ${c.is_nullable}`),
        [
          'event_id uuid NO',
          'event_type text NO',
          'project_id text NO',
          'agent_id text YES',
          'memory_id text YES',
          'api_key_id text YES',
          'details jsonb NO',
          'created_at timestamp with time zone NO',
          'published_at timestamp with time zone YES',
          'publish_attempts integer NO',
          'failed_attempts integer NO',
          'dead_lettered_at timestamp with time zone YES',
          'last_error text YES',
        ],
      );
      const idx = await db.knex.raw<{ rows: { indexdef: string }[] }>(
        `select indexdef from pg_indexes where tablename = 'audit_events' order by indexname`,
      );
      const defs = idx.rows.map((r) => r.indexdef.replace(/ USING btree/, '').replace(/public\./g, ''));
      assert.ok(
        defs.some((d) => d.includes('(project_id, created_at DESC, event_id DESC)')),
        defs.join('\n'),
      );
      assert.ok(
        defs.some((d) => d.includes('(created_at, event_id) WHERE (published_at IS NULL)')),
        defs.join('\n'),
      );
      assert.ok(
        defs.some((d) => d.includes('(project_id, event_type, created_at DESC)')),
        defs.join('\n'),
      );
      assert.ok(
        defs.some((d) => d.includes('(dead_lettered_at, event_id) WHERE (dead_lettered_at IS NOT NULL)')),
        defs.join('\n'),
      );
    });

    it('fill in event defaults: empty details, now(), unpublished, zero attempts', async () => {
      await db.knex('audit_events').insert({
        event_id: '01890a5d-ac96-774b-bcce-b302099a8057',
        event_type: 'KEY_CREATED',
        project_id: 'p',
      });
      const row = await db.knex('audit_events').first();
      assert.deepEqual(row.details, {});
      assert.ok(Math.abs(new Date(row.created_at as Date | string).getTime() - Date.now()) < 60_000);
      assert.equal(row.published_at, null);
      assert.equal(row.publish_attempts, 0);
      assert.equal(row.failed_attempts, 0);
      assert.equal(row.dead_lettered_at, null);
      await db.knex('audit_events').delete();
    });

    it('roll back completely and apply again', async () => {
      const all = ['20261121000000_audit_events', '20261124000000_audit_events_dead_letter'];
      assert.deepEqual(await migrateRollbackAll(db, eventsMigrations), [...all].reverse());
      assert.equal(await tableExists(db), false);
      assert.deepEqual(await migrateLatest(db, eventsMigrations), all);
      assert.ok(await tableExists(db));
    });
  });
}
