import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { createClient, decodeStatusDetails, unary } from '@engram/grpc-kit';
import { IngestServiceClient, type AddMemoryRequest } from '@engram/proto/engram/ingest/v1/ingest';
import type { WriteResult } from '@engram/proto/engram/memory/v1/memory';
import { ENGINES, type ApiClient, type ApiResponse } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface ErrorBody {
  error: { status: number; reason: string; details: { field_violations?: { field: string }[] }[] };
}

/** A GitHub token: the default content policy rejects secrets (422 SECURITY_REJECTED). */
const SECRET = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36);

/**
 * Idempotency-Key on the write routes, as a client sees it through the gateway and over gRPC: a
 * repeat answers what the first request answered and stores nothing (no memory, no provenance
 * record, no audit event), on PGlite and on PostgreSQL.
 */
for (const engine of ENGINES) {
  describe(`idempotent writes (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let alice: ApiClient;
    let bob: ApiClient;

    before(async () => {
      t = await startTestEngram(engine);
      alice = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'alice' });
      bob = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'bob' });
    });
    after(() => t?.stop());

    const key = (k: string) => ({ 'idempotency-key': k });
    const send = (client: ApiClient, method: string, path: string, body: unknown, k?: string) =>
      client.request(method, path, body, k === undefined ? {} : key(k));
    const count = async (table: string) =>
      Number((await t.engram.db.knex(table).count<{ n: string }[]>('* as n'))[0]?.n ?? 0);
    /** What a write leaves behind: memories, provenance records, audit events. */
    const stored = async () => ({
      memories: await count('memories'),
      provenance: await count('memory_provenance'),
      audit_events: await count('audit_events'),
    });
    const reasonOf = (res: ApiResponse) => (res.body as unknown as ErrorBody).error.reason;

    /** Sends the request twice with one key: the second answer must be the first, and store nothing. */
    async function repeatStoresNothing(
      client: ApiClient,
      method: string,
      path: string,
      body: unknown,
      k: string,
    ): Promise<ApiResponse> {
      const first = await send(client, method, path, body, k);
      const before = await stored();
      const second = await send(client, method, path, body, k);
      assert.equal(second.status, first.status, second.text);
      assert.equal(second.text, first.text);
      assert.deepEqual(await stored(), before, `${method} ${path}: the repeat stored something`);
      return first;
    }

    it('POST /memories/add twice with one key: the same answer, one memory, no second provenance or audit event', async () => {
      const body = { content: 'Idempotent note: the canary gates every deploy.', agent_id: 'alice' };
      const first = await repeatStoresNothing(alice, 'POST', '/memories/add', body, 'add-1');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.deduplicated, false);
      // Without the key the same body runs again: deduplicated, and audited as such.
      const before = await stored();
      const again = await alice.post('/memories/add', body);
      assert.deepEqual([again.body.id, again.body.deduplicated], [first.body.id, true]);
      assert.equal((await stored()).audit_events, before.audit_events + 1);
    });

    it('refuses the key with another body or on another route: 422 IDEMPOTENCY_KEY_REUSED, nothing stored', async () => {
      const first = await send(
        alice,
        'POST',
        '/memories/add',
        { content: 'Reuse one.', agent_id: 'alice' },
        'reuse',
      );
      assert.equal(first.status, 200, first.text);
      const before = await stored();
      const otherBody = await send(
        alice,
        'POST',
        '/memories/add',
        { content: 'Reuse two.', agent_id: 'alice' },
        'reuse',
      );
      assert.equal(otherBody.status, 422, otherBody.text);
      assert.equal(reasonOf(otherBody), 'IDEMPOTENCY_KEY_REUSED');
      const otherRoute = await send(
        alice,
        'POST',
        `/memories/ace/vote/${String(first.body.id)}`,
        { vote: 'helpful' },
        'reuse',
      );
      assert.equal(otherRoute.status, 422, otherRoute.text);
      assert.equal(reasonOf(otherRoute), 'IDEMPOTENCY_KEY_REUSED');
      assert.deepEqual(await stored(), before);
    });

    it('10 concurrent identical requests with one key: one memory; each answer the first one or 409 in progress', async () => {
      const body = { content: 'Concurrent retries of one write.', agent_id: 'alice' };
      const before = await stored();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => send(alice, 'POST', '/memories/add', body, 'concurrent')),
      );
      const ok = answers.filter((a) => a.status === 200);
      const busy = answers.filter((a) => a.status === 409);
      assert.equal(ok.length + busy.length, 10, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((a) => a.text)).size, 1, 'every 200 is the same answer');
      for (const a of busy) {
        assert.equal(reasonOf(a), 'IDEMPOTENCY_KEY_IN_PROGRESS');
        assert.equal(a.headers.get('retry-after'), '1');
      }
      const after = await stored();
      assert.equal(after.memories, before.memories + 1);
      assert.equal(after.provenance, before.provenance + 1);
      const later = await send(alice, 'POST', '/memories/add', body, 'concurrent');
      assert.equal(later.text, ok[0]!.text, 'a retry after the 409 gets the answer');
    });

    it('replays a refused write identically: 400 validation and 422 security reject', async () => {
      const invalid = await repeatStoresNothing(
        alice,
        'POST',
        '/memories/add',
        { content: '', agent_id: 'alice' },
        'bad-1',
      );
      assert.equal(invalid.status, 400, invalid.text);
      const before = await stored();
      const rejected = await repeatStoresNothing(
        alice,
        'POST',
        '/memories/add',
        { content: `deploy token ${SECRET}`, agent_id: 'alice' },
        'secret-1',
      );
      assert.equal(rejected.status, 422, rejected.text);
      assert.equal(reasonOf(rejected), 'SECURITY_REJECTED');
      assert.equal((await stored()).audit_events, before.audit_events + 1, 'one SECURITY_REJECTED event');
    });

    it('POST /admin/keys: a repeat answers the same raw key once more, creates no second key, and keeps it sealed', async () => {
      const keys = () => count('api_keys');
      const body = { name: 'retried-key', trust_level: 'internal', bound_agent_id: 'carol' };
      const before = await keys();
      const first = await send(t.admin, 'POST', '/admin/keys', body, 'create-key-1');
      assert.equal(first.status, 200, first.text);
      const second = await send(t.admin, 'POST', '/admin/keys', body, 'create-key-1');
      assert.equal(second.status, 200, second.text);
      assert.equal(second.text, first.text, 'the same answer, raw key included');
      assert.equal(await keys(), before + 1, 'one key created');
      const raw = String(first.body.api_key);
      assert.ok(raw.length > 20);
      // The replayed key works.
      const carol = await t.admin
        .withKey(raw)
        .post('/memories/add', { content: 'Carol was here.', agent_id: 'carol' });
      assert.equal(carol.status, 200, carol.text);
      // Nothing in the database holds the raw key: the stored answer is sealed.
      const rows = await t.engram.db
        .knex('idempotency_records')
        .where({ idempotency_key: 'create-key-1' })
        .select<{ response: Uint8Array }[]>('response');
      assert.equal(rows.length, 1);
      assert.equal(Buffer.from(rows[0]!.response).includes(Buffer.from(raw)), false);
      const another = await send(t.admin, 'POST', '/admin/keys', { ...body, name: 'x' }, 'create-key-1');
      assert.equal(another.status, 422, another.text);
      assert.equal(reasonOf(another), 'IDEMPOTENCY_KEY_REUSED');
    });

    it('covers add_batch, a vote, a PATCH and a DELETE', async () => {
      const batch = await repeatStoresNothing(
        alice,
        'POST',
        '/memories/add_batch',
        {
          items: [{ content: 'Batch item one.' }, { content: 'Batch item two.' }].map((i) => ({
            ...i,
            agent_id: 'alice',
          })),
        },
        'batch-1',
      );
      assert.equal(batch.status, 200, batch.text);
      const global = await alice.post<{ id: string }>('/memories/add', {
        content: 'Retry flaky uploads with exponential backoff.',
        agent_id: 'alice',
        memory_type: 'strategy',
        scope: 'global',
      });
      const id = global.body.id;
      const vote = await repeatStoresNothing(
        bob,
        'POST',
        `/memories/ace/vote/${id}`,
        { vote: 'helpful', task_id: 't1' },
        'vote-1',
      );
      assert.equal(vote.status, 200, vote.text);
      assert.equal(vote.body.helpful, 1);

      const own = await alice.post<{ id: string }>('/memories/add', {
        content: 'A note to relabel.',
        agent_id: 'alice',
      });
      const patch = await repeatStoresNothing(
        t.admin,
        'PATCH',
        `/memories/${own.body.id}`,
        { scope: 'global' },
        'patch-1',
      );
      assert.equal(patch.status, 200, patch.text);
      assert.equal(patch.body.scope, 'global');

      const del = await repeatStoresNothing(
        t.admin,
        'DELETE',
        `/memories/${own.body.id}`,
        undefined,
        'delete-1',
      );
      assert.equal(del.status, 200, del.text);
      const unkeyed = await t.admin.request('DELETE', `/memories/${own.body.id}`);
      assert.equal(unkeyed.status, 404, 'without the key a second DELETE runs and finds nothing');
    });

    it('scopes a key by project and API key: another key with the same Idempotency-Key runs its own request', async () => {
      const k1 = await t.admin.createKey({ trust_level: 'internal', any_agent: true });
      const k2 = await t.admin.createKey({ trust_level: 'internal', any_agent: true });
      const created = await t.admin.post('/admin/projects', { project_id: 'team-b', name: 'Team B' });
      assert.equal(created.status, 200, created.text);
      const other = await t.admin.createKey({
        trust_level: 'internal',
        project_id: 'team-b',
        any_agent: true,
      });
      const body = { content: 'Scoped idempotency note.', agent_id: 'shared' };
      const first = await send(k1, 'POST', '/memories/add', body, 'scoped');
      const sameProject = await send(k2, 'POST', '/memories/add', body, 'scoped');
      const otherProject = await send(other, 'POST', '/memories/add', body, 'scoped');
      assert.deepEqual([first.status, sameProject.status, otherProject.status], [200, 200, 200]);
      assert.equal(first.body.deduplicated, false);
      assert.deepEqual(
        [sameProject.body.id, sameProject.body.deduplicated],
        [first.body.id, true],
        "k2's request ran (and met k1's memory): it did not get k1's answer",
      );
      assert.notEqual(otherProject.body.id, first.body.id);
      assert.equal(otherProject.body.deduplicated, false);
    });

    it('over gRPC with idempotency-key metadata: replayed, refused on reuse, and shared with the REST route', async () => {
      const client = createClient(IngestServiceClient, t.grpcAddress);
      try {
        const md = (k: string) => {
          const m = new Metadata();
          m.set('authorization', `Bearer ${t.adminKey}`);
          m.set('idempotency-key', k);
          return m;
        };
        const request = (content: string): AddMemoryRequest => ({
          content,
          agent_id: 'grpc-agent',
          shared_with: [],
          metadata: undefined,
          steps: [],
          trigger_conditions: [],
        });
        const add = (content: string, k: string) =>
          unary<AddMemoryRequest, WriteResult>(client.addMemory.bind(client), request(content), md(k));
        const first = await add('Written over gRPC once.', 'grpc-1');
        const before = await stored();
        assert.deepEqual(await add('Written over gRPC once.', 'grpc-1'), first);
        const rest = await send(
          t.admin,
          'POST',
          '/memories/add',
          { content: 'Written over gRPC once.', agent_id: 'grpc-agent' },
          'grpc-1',
        );
        assert.deepEqual([rest.status, rest.body.id, rest.body.deduplicated], [200, first.id, false]);
        assert.deepEqual(await stored(), before);
        await assert.rejects(add('Another request.', 'grpc-1'), (err: ServiceError) => {
          assert.equal(err.code, Status.FAILED_PRECONDITION);
          assert.equal(decodeStatusDetails(err).reason, 'IDEMPOTENCY_KEY_REUSED');
          return true;
        });
        await assert.rejects(add('Bad key.', 'k'.repeat(256)), (err: ServiceError) => {
          assert.equal(err.code, Status.INVALID_ARGUMENT);
          assert.deepEqual(
            decodeStatusDetails(err).fieldViolations.map((v) => v.field),
            ['idempotency-key'],
          );
          return true;
        });
      } finally {
        client.close();
      }
    });

    it('replays no record past its TTL: the request runs again', async () => {
      const body = { content: 'An answer that expires.', agent_id: 'alice' };
      const first = await send(alice, 'POST', '/memories/add', body, 'expiring');
      assert.equal(first.body.deduplicated, false);
      await t.engram.db
        .knex('idempotency_records')
        .where({ idempotency_key: 'expiring' })
        .update({ expires_at: t.engram.db.knex.raw(`now() - interval '1 second'`) });
      const after = await send(alice, 'POST', '/memories/add', body, 'expiring');
      assert.deepEqual([after.status, after.body.id, after.body.deduplicated], [200, first.body.id, true]);
      const replay = await send(alice, 'POST', '/memories/add', body, 'expiring');
      assert.equal(replay.text, after.text, 'the new answer is kept from now on');
    });

    it('keeps nothing for reads: a GET ignores the header, a POST query with a key is not stored', async () => {
      const id = (
        await alice.post<{ id: string }>('/memories/add', { content: 'Read me.', agent_id: 'alice' })
      ).body.id;
      const get = await alice.request('GET', `/memories/${id}`, undefined, key('é'.repeat(300)));
      assert.equal(get.status, 200, get.text);
      for (let i = 0; i < 2; i++) {
        const q = await send(
          alice,
          'POST',
          '/memories/query',
          { query: 'read me', agent_id: 'alice' },
          'query-1',
        );
        assert.equal(q.status, 200, q.text);
      }
      const records = await t.engram.db.knex('idempotency_records').where({ idempotency_key: 'query-1' });
      assert.deepEqual(records, []);
    });

    it('refuses a malformed header before any service: 400 VALIDATION_FAILED naming Idempotency-Key', async () => {
      const before = await stored();
      for (const bad of ['', 'k'.repeat(256), 'clé']) {
        const res = await send(
          alice,
          'POST',
          '/memories/add',
          { content: 'Malformed key.', agent_id: 'alice' },
          bad,
        );
        assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
        const body = res.body as unknown as ErrorBody;
        assert.equal(body.error.reason, 'VALIDATION_FAILED');
        assert.deepEqual(
          body.error.details.flatMap((d) => d.field_violations ?? []).map((v) => v.field),
          ['Idempotency-Key'],
        );
      }
      const longest = await send(
        alice,
        'POST',
        '/memories/add',
        { content: 'Longest key.', agent_id: 'alice' },
        '~'.repeat(255),
      );
      assert.equal(longest.status, 200, longest.text);
      assert.equal((await stored()).memories, before.memories + 1);
    });
  });
}
