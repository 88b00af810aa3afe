import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { add, integrityFailures, knexOf, tamper, type ErrorBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface MemoryBody {
  id: string;
  scope: string;
  trust_level: string;
  shared_with: string[];
}
interface EventRow {
  event_type: string;
  details: Record<string, unknown>;
}

for (const engine of ENGINES) {
  describe(`PATCH and DELETE /memories/{id} (${engine})`, function () {
    this.timeout(90_000);
    let t: TestEngram;
    let owner: ApiClient;
    let other: ApiClient;
    let privileged: ApiClient;
    let untrusted: ApiClient;

    before(async () => {
      t = await startTestEngram(engine);
      owner = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'owner' });
      other = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'other' });
      privileged = await t.admin.createKey({ trust_level: 'privileged' });
      untrusted = await t.admin.createKey({ trust_level: 'untrusted', bound_agent_id: 'scraper' });
    });
    after(() => t?.stop());

    const patch = <T = MemoryBody>(client: ApiClient, id: string, body: Record<string, unknown>) =>
      client.request<T>('PATCH', `/memories/${id}`, body);
    const events = (id: string): Promise<EventRow[]> =>
      knexOf(t)('audit_events')
        .where({ memory_id: id })
        .whereIn('event_type', ['SCOPE_CHANGED', 'TRUST_CHANGED', 'MEMORY_DELETED'])
        .orderBy('event_id')
        .select('event_type', 'details');

    it('lets a privileged key promote scope and trust, re-signs, records old and new values, keeps provenance', async () => {
      const id = await add(owner, { content: 'The build cache lives on nfs-02.' });
      const provBefore = await knexOf(t)('memory_provenance').where({ memory_id: id }).first();
      const res = await patch(privileged, id, { scope: 'global', trust_level: 'privileged' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.scope, res.body.trust_level], ['global', 'privileged']);
      // Re-signed: every agent now reads it, and it verifies.
      const read = await other.get(`/memories/${id}`);
      assert.equal(read.status, 200, read.text);
      const verify = await t.admin.post<{ valid: boolean; format: string }>(`/security/verify/${id}`, {});
      assert.deepEqual([verify.body.valid, verify.body.format], [true, 'v2']);
      assert.deepEqual(
        (await events(id)).map((e) => [e.event_type, e.details]),
        [
          [
            'SCOPE_CHANGED',
            {
              old_scope: 'agent-private',
              new_scope: 'global',
              old_shared_with: [],
              new_shared_with: [],
              author_agent_id: 'owner',
            },
          ],
          [
            'TRUST_CHANGED',
            { old_trust_level: 'internal', new_trust_level: 'privileged', author_agent_id: 'owner' },
          ],
        ],
      );
      const provAfter = await knexOf(t)('memory_provenance').where({ memory_id: id }).first();
      assert.deepEqual(provAfter, provBefore);
      assert.equal((await integrityFailures(knexOf(t), id)).length, 0);
    });

    it('lets an owner only narrow its own memory; widening, trust changes and foreign memories are 403', async () => {
      const id = await add(owner, { content: 'Shared runbook step.', scope: 'global' });
      const toShared = await patch(owner, id, { scope: 'agent-shared', shared_with: ['other', 'third'] });
      assert.equal(toShared.status, 200, toShared.text);
      assert.deepEqual(toShared.body.shared_with.sort(), ['other', 'third']);
      const fewer = await patch(owner, id, { shared_with: ['other'] });
      assert.equal(fewer.status, 200, fewer.text);
      assert.deepEqual(fewer.body.shared_with, ['other']);

      const widen = await patch<ErrorBody>(owner, id, { shared_with: ['other', 'stranger'] });
      assert.equal(widen.status, 403);
      assert.equal(widen.body.error.reason, 'SCOPE_FORBIDDEN');
      const toGlobal = await patch<ErrorBody>(owner, id, { scope: 'global' });
      assert.equal(toGlobal.status, 403);
      assert.equal(toGlobal.body.error.reason, 'SCOPE_FORBIDDEN');
      const trust = await patch<ErrorBody>(owner, id, { trust_level: 'untrusted' });
      assert.equal(trust.status, 403);
      assert.equal(trust.body.error.reason, 'TRUST_FORBIDDEN');
      // other can read it (shared with it) but does not own it.
      const foreign = await patch<ErrorBody>(other, id, { scope: 'agent-private' });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.error.reason, 'SCOPE_FORBIDDEN');

      const narrowed = await patch(owner, id, { scope: 'agent-private' });
      assert.equal(narrowed.status, 200, narrowed.text);
      assert.deepEqual([narrowed.body.scope, narrowed.body.shared_with], ['agent-private', []]);
      assert.equal((await other.get(`/memories/${id}`)).status, 404, 'no longer visible to other');
      assert.equal((await owner.get(`/memories/${id}`)).status, 200, 'still verifies for its owner');
      const invisible = await patch<ErrorBody>(other, id, { scope: 'agent-private' });
      assert.equal(invisible.status, 404);
    });

    it('holds the content ceiling: untrusted content never goes global, a label never above the key', async () => {
      const scraped = await add(untrusted, { content: 'Scraped forum advice.' });
      const promote = await patch<ErrorBody>(privileged, scraped, { scope: 'global' });
      assert.equal(promote.status, 403);
      assert.equal(promote.body.error.reason, 'SCOPE_FORBIDDEN');
      const both = await patch(privileged, scraped, { scope: 'global', trust_level: 'internal' });
      assert.equal(both.status, 200, both.text);
      const id = await add(owner, { content: 'Internal fact.' });
      const above = await patch<ErrorBody>(privileged, id, { trust_level: 'system' });
      assert.equal(above.status, 403);
      assert.equal(above.body.error.reason, 'TRUST_FORBIDDEN');
      const bad = await patch<ErrorBody>(privileged, id, { scope: 'everyone' });
      assert.equal(bad.status, 400);
      assert.equal(
        (await patch(privileged, '01234567-89ab-7def-8123-456789abcdef', { scope: 'global' })).status,
        404,
      );
      assert.equal((await patch(privileged, 'not-a-uuid', { scope: 'global' })).status, 404);
    });

    it('never re-signs a tampered memory, records the refusal, and never shows it in a no-op answer', async () => {
      const id = await add(owner, { content: 'Relabel after tampering.' });
      await tamper(knexOf(t), id, 'content');
      const res = await patch<ErrorBody>(privileged, id, { scope: 'global' });
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.reason, 'INTEGRITY_FAILED');
      const row = await knexOf(t)('memories').where({ id }).first();
      assert.equal(row.scope, 'agent-private');
      // The same label again changes nothing, and its answer would show the edited content.
      const noop = await patch<ErrorBody>(owner, id, { scope: 'agent-private' });
      assert.equal(noop.status, 409, noop.text);
      assert.ok(!noop.text.includes('vault code'));
      const refusals = (await integrityFailures(knexOf(t), id)).map((e) => e.details);
      assert.deepEqual(refusals, [
        { route: 'relabel', status: 'invalid', action: 'refused', author_agent_id: 'owner' },
        { route: 'relabel', status: 'invalid', action: 'refused', author_agent_id: 'owner' },
      ]);
    });

    it('never signs an unsigned memory: null the hash, edit the content, relabel is 409 and it stays unsigned', async () => {
      const knex = knexOf(t);
      const id = await add(owner, { content: 'Relabel after stripping the signature.' });
      await knex('memories').where({ id }).update({ integrity_hash: null });
      await tamper(knex, id, 'content');
      // Readable as unsigned (INTEGRITY_REQUIRE_SIGNED is off), but nobody vouched for this content.
      assert.equal((await owner.get(`/memories/${id}`)).status, 200);
      for (const label of [{ scope: 'global' }, { trust_level: 'privileged' }]) {
        const res = await patch<ErrorBody>(privileged, id, label);
        assert.equal(res.status, 409, res.text);
        assert.equal(res.body.error.reason, 'INTEGRITY_FAILED');
        assert.match(res.body.error.message, /backfill-integrity/);
      }
      const row = await knex('memories').where({ id }).first();
      assert.deepEqual([row.integrity_hash, row.scope, row.trust_level], [null, 'agent-private', 'internal']);
      const verify = await t.admin.post<{ valid: boolean }>(`/security/verify/${id}`, {});
      assert.equal(verify.body.valid, false, verify.text);
      assert.deepEqual((await events(id)).length, 0, 'no SCOPE_CHANGED or TRUST_CHANGED');
      const refusals = (await integrityFailures(knex, id)).map((e) => e.details);
      assert.equal(refusals.length, 2);
      assert.deepEqual(refusals[0], {
        route: 'relabel',
        status: 'unsigned',
        action: 'refused',
        author_agent_id: 'owner',
      });
      // An empty hash is unsigned too.
      await knex('memories').where({ id }).update({ integrity_hash: '' });
      assert.equal((await patch(privileged, id, { scope: 'global' })).status, 409);
      assert.equal((await knex('memories').where({ id }).first()).integrity_hash, '');
    });

    it('deletes for the owner or a privileged key, leaving a tombstone without content', async () => {
      const id = await add(owner, { content: 'Delete me: the old VPN address.', scope: 'global' });
      const denied = await other.request<ErrorBody>('DELETE', `/memories/${id}`);
      assert.equal(denied.status, 403);
      const res = await owner.request<{ id: string; deleted: boolean }>('DELETE', `/memories/${id}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { id, deleted: true });
      assert.equal((await owner.get(`/memories/${id}`)).status, 404);
      assert.equal((await knexOf(t)('memory_provenance').where({ memory_id: id })).length, 0);
      const [tomb] = await events(id);
      assert.equal(tomb?.event_type, 'MEMORY_DELETED');
      assert.ok(!JSON.stringify(tomb?.details).includes('VPN'));
      assert.equal((await owner.request('DELETE', `/memories/${id}`)).status, 404);
      const byPrivileged = await add(owner, { content: 'Privileged may delete this.' });
      assert.equal((await privileged.request('DELETE', `/memories/${byPrivileged}`)).status, 200);
    });
  });
}
