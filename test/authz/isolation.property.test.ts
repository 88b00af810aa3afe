import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type ApiClient, type ApiResponse } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/**
 * Project isolation as a property: whatever sequence of calls a key of project A makes (writes,
 * every kind of read, by-id operations on ids it learnt from anywhere, ids chosen to collide with
 * project B's sessions, features and runs), no answer contains a memory, an id or a piece of content
 * of project B, no answer counts B's rows, an id of B is indistinguishable from one that never
 * existed, and B's data is unchanged afterwards. A is a system key: the widest reader there is.
 */
/** The distinctive part of each of B's memories (never produced by the generated texts). */
const B_CONTENT = [
  'deploy secret of project B',
  'private note of project B',
  'step one of B',
  'fact about the entity in B',
];

describe('project isolation (fast-check property, PGlite)', function () {
  this.timeout(600_000);
  let t: TestEngram;
  let a: ApiClient;
  let b: ApiClient;
  const marker = `zebra${randomBytes(4).toString('hex')}`;
  const bIds: string[] = [];
  const shared = {
    session: 'shared-session',
    entity: 'shared-entity',
    feature: 'shared-feature',
    run: 'shared-run',
  };
  const aWritten = new Set<string>();

  before(async () => {
    t = await startTestEngram('pglite', {
      RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
      RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
    });
    const run = randomBytes(4).toString('hex');
    for (const p of [`iso-a-${run}`, `iso-b-${run}`]) {
      assert.equal((await t.admin.post('/admin/projects', { project_id: p, name: p })).status, 200);
    }
    a = await t.admin.createKey({ trust_level: 'system', project_id: `iso-a-${run}` });
    b = await t.admin.createKey({ trust_level: 'system', project_id: `iso-b-${run}` });
    const bodies = [
      { content: `${marker} deploy secret of project B`, agent_id: 'alice', scope: 'global' },
      { content: `${marker} private note of project B`, agent_id: 'alice', scope: 'agent-private' },
    ];
    for (const body of bodies) bIds.push((await b.post<{ id: string }>('/memories/add', body)).body.id);
    bIds.push(
      (
        await b.post<{ id: string }>('/memories/typed/episodic', {
          content: `${marker} step one of B`,
          agent_id: 'alice',
          session_id: shared.session,
          scope: 'global',
        })
      ).body.id,
    );
    bIds.push(
      (
        await b.post<{ id: string }>('/memories/typed/semantic', {
          content: `${marker} fact about the entity in B`,
          agent_id: 'alice',
          entity_id: shared.entity,
          scope: 'global',
        })
      ).body.id,
    );
    assert.equal(bIds.filter((id) => typeof id === 'string').length, 4);
    await b.post('/memories/ace/session', { session_id: shared.session, agent_id: 'alice' });
    await b.post('/memories/ace/feature', { feature_id: shared.feature, description: 'B feature' });
    await b.post('/ace/run', { run_id: shared.run, agent_id: 'alice', task_type: 'b' });
    await b.post(`/memories/ace/vote/${bIds[0]}`, { vote: 'helpful', voter_agent_id: 'alice', task_id: 't' });
  });
  after(() => t?.stop());

  type Call = (client: ApiClient) => Promise<ApiResponse>;
  const word = fc.constantFrom(marker, 'deploy', 'secret', 'entity', 'step', 'canary', 'E4711', 'project');
  const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
  const agent = fc.constantFrom('alice', 'bob');
  const bId = fc.integer({ min: 0, max: 3 }).map((i) => bIds[i]!);
  const scope = fc.constantFrom('agent-private', 'agent-shared', 'global');

  /** Calls whose answers are checked for B's ids, content and counts. */
  const reads: fc.Arbitrary<[string, Call]>[] = [
    fc
      .tuple(text, agent, scope)
      .map(([content, agent_id, s]): [string, Call] => [
        'add',
        (c) => c.post('/memories/add', { content: `${content} ${randomUUID()}`, agent_id, scope: s }),
      ]),
    fc.tuple(text, agent).map(([content, agent_id]): [string, Call] => [
      'episodic in the shared session id',
      (c) =>
        c.post('/memories/typed/episodic', {
          content: `${content} ${randomUUID()}`,
          agent_id,
          session_id: shared.session,
        }),
    ]),
    ...['/memories/query', '/memories/hybrid_query', '/memories/typed/query'].map((path) =>
      fc
        .tuple(text, agent)
        .map(([query, agent_id]): [string, Call] => [
          path,
          (c) => c.post(path, { query, agent_id, top_k: 100 }),
        ]),
    ),
    agent.map((agent_id): [string, Call] => [
      'timeline',
      (c) => c.get(`/memories/typed/episodic/session/${shared.session}?agent_id=${agent_id}`),
    ]),
    agent.map((agent_id): [string, Call] => [
      'entity',
      (c) => c.get(`/memories/typed/semantic/entity/${shared.entity}?agent_id=${agent_id}`),
    ]),
    agent.map((agent_id): [string, Call] => ['export', (c) => c.post('/memories/export', { agent_id })]),
    fc
      .tuple(text, agent)
      .map(([query, agent_id]): [string, Call] => [
        'playbook',
        (c) => c.post('/memories/ace/playbook', { query, agent_id }),
      ]),
    fc
      .tuple(text, agent)
      .map(([query, agent_id]): [string, Call] => [
        'context',
        (c) => c.post('/context/load', { query, agent_id, token_budget: 4000 }),
      ]),
    fc
      .tuple(text, agent)
      .map(([task_context, source]): [string, Call] => [
        'handoff',
        (c) =>
          c.post('/memories/handoff', { source_agent_id: source, target_agent_id: 'carol', task_context }),
      ]),
    agent.map((agent_id): [string, Call] => ['curate', (c) => c.post('/ace/curate', { agent_id })]),
    fc.constant<[string, Call]>(['audit', (c) => c.get('/security/audit')]),
    fc.constant<[string, Call]>(['flagged', (c) => c.get('/security/flagged')]),
    fc.constant<[string, Call]>(['features', (c) => c.get('/memories/ace/features')]),
    fc.constant<[string, Call]>([
      'session with B id',
      (c) => c.get(`/memories/ace/session/${shared.session}`),
    ]),
    fc.constant<[string, Call]>(['run with B id', (c) => c.get(`/ace/run/${shared.run}`)]),
  ];

  /** By-id calls on one of B's memory ids: must answer exactly as for an id that never existed. */
  const byId: ((id: string) => Call)[] = [
    (id) => (c) => c.get(`/memories/${id}`),
    (id) => (c) =>
      c.post(`/memories/ace/vote/${id}`, { vote: 'harmful', voter_agent_id: 'alice', task_id: 'x' }),
    (id) => (c) => c.post(`/memories/${id}/deprecate`, { reason: 'probe' }),
    (id) => (c) => c.request('PATCH', `/memories/${id}`, { scope: 'agent-private' }),
    (id) => (c) => c.request('DELETE', `/memories/${id}`),
    (id) => (c) => c.post(`/security/verify/${id}`, {}),
  ];

  const step = fc.oneof(
    ...reads.map((r) => r.map(([name, call]) => ({ kind: 'read' as const, name, call }))),
    fc
      .tuple(fc.integer({ min: 0, max: byId.length - 1 }), bId)
      .map(([i, id]) => ({ kind: 'by-id' as const, name: `by-id #${i} on ${id}`, i, id })),
  );

  const assertNothingOfB = (name: string, res: ApiResponse) => {
    assert.ok(res.status < 500, `${name}: ${res.status} ${res.text.slice(0, 200)}`);
    for (const id of bIds) assert.ok(!res.text.includes(id), `${name} revealed B's memory ${id}`);
    // Queries are echoed in some answers (handoff, context); B's content is what follows the marker.
    for (const tail of B_CONTENT) assert.ok(!res.text.includes(tail), `${name} revealed B's content`);
    const memories = (res.body as { memories?: unknown[] } | undefined)?.memories;
    if (Array.isArray(memories)) {
      // Counts: an answer can never hold more rows than project A has.
      assert.ok(memories.length <= aWritten.size, `${name} counted ${memories.length} rows`);
    }
  };

  it('no sequence of calls by project A reveals anything of project B', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        for (const s of steps) {
          if (s.kind === 'read') {
            const res = await s.call(a);
            const id = (res.body as { id?: unknown } | undefined)?.id;
            if (res.status === 200 && typeof id === 'string') aWritten.add(id);
            assertNothingOfB(s.name, res);
          } else {
            const onB = await byId[s.i]!(s.id)(a);
            const never = await byId[s.i]!(randomUUID())(a);
            assertNothingOfB(s.name, onB);
            assert.equal(onB.status, never.status, `${s.name}: ${onB.text} vs ${never.text}`);
            assert.deepEqual(
              (onB.body as { error?: unknown } | undefined)?.error,
              (never.body as { error?: unknown } | undefined)?.error,
              s.name,
            );
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it("B's ids are B's own: A may create a session, feature and run with the same ids (no 409)", async () => {
    const session = await a.post('/memories/ace/session', { session_id: shared.session, agent_id: 'alice' });
    const feature = await a.post('/memories/ace/feature', { feature_id: shared.feature, description: 'A' });
    const run = await a.post('/ace/run', { run_id: shared.run, agent_id: 'alice', task_type: 'a' });
    for (const res of [session, feature, run]) {
      assert.ok(res.status === 200 || res.status === 501, `${res.status} ${res.text}`);
      for (const tail of B_CONTENT) assert.ok(!res.text.includes(tail));
    }
  });

  it("B's memories are untouched afterwards", async () => {
    for (const id of bIds) {
      const res = await b.get<{ id: string; is_deprecated: boolean }>(`/memories/${id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.is_deprecated, false);
    }
  });
});
