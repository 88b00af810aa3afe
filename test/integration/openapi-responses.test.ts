import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiClient,
  OpenApiResponses,
  REPO_ROOT,
  type ApiResponse,
  type OpenApiDocument,
} from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const GITHUB_TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36);

// Bodies are read as loosely typed JSON; the schemas of the document check their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

type Detail = Record<string, unknown>;
const isBadRequest = (d: Detail) => String(d['@type']).endsWith('/google.rpc.BadRequest');

/**
 * Real responses of a running Engram (embedded, in-process, real gRPC and storage) checked against
 * the OpenAPI document it serves: each body must validate against the schema the document declares
 * for that operation and status (the status must be declared, not only `default`).
 */
describe('OpenAPI document vs real responses (pglite)', function () {
  this.timeout(60_000);
  let t: TestEngram;
  let api: OpenApiResponses;
  let memoryId: string;

  before(async () => {
    t = await startTestEngram('pglite');
    const res = await fetch(`${t.baseUrl}/openapi.json`);
    assert.equal(res.status, 200);
    api = new OpenApiResponses((await res.json()) as OpenApiDocument);
  });
  after(() => t?.stop());

  /** Asserts the status and that the body validates against the declared schema; returns the body. */
  function conforms(method: string, path: string, res: ApiResponse<Loose>, status: number): Loose {
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    const errors = api.errors(method, path, status, res.body);
    assert.deepEqual(errors, [], `${method} ${path} ${status}: ${res.text}`);
    return res.body;
  }

  it('serves exactly the committed docs/openapi.json, without a key', async () => {
    const res = await new ApiClient(t.baseUrl).get('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const committed = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/openapi.json'), 'utf8')) as unknown;
    assert.deepEqual(res.body, committed, 'docs/openapi.json is stale: run make docs');
  });

  it('add, get, query, hybrid_query and export answer as the document says', async () => {
    const added = conforms(
      'POST',
      '/memories/add',
      await t.admin.post('/memories/add', {
        content: 'Deploys of the payments service fail with E4711 when the canary is unhealthy.',
        agent_id: 'planner',
        metadata: { source: 'runbook', tags: ['deploy'], severity: 2 },
      }),
      200,
    );
    memoryId = added.id as string;

    const got = conforms(
      'GET',
      '/memories/{id}',
      await t.admin.get(`/memories/${memoryId}?agent_id=planner`),
      200,
    );
    assert.equal(got.id, memoryId);

    const query = { query: 'what does E4711 mean', agent_id: 'planner', top_k: 5 };
    const found = conforms('POST', '/memories/query', await t.admin.post('/memories/query', query), 200);
    assert.ok(found.memories.length > 0, 'the query found nothing: its items were not checked');
    const hybrid = conforms(
      'POST',
      '/memories/hybrid_query',
      await t.admin.post('/memories/hybrid_query', query),
      200,
    );
    assert.ok(hybrid.memories.length > 0);

    const exported = await t.admin.request('POST', '/memories/export', { agent_id: 'planner' });
    assert.equal(exported.status, 200, exported.text);
    assert.match(exported.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = exported.text.split('\n').filter((l) => l !== '');
    assert.ok(lines.length > 0);
    for (const line of lines) {
      assert.deepEqual(
        api.errors('POST', '/memories/export', 200, JSON.parse(line), 'application/x-ndjson'),
        [],
        line,
      );
    }
  });

  it('a vote, a progress session and the security config answer as the document says', async () => {
    conforms(
      'POST',
      '/memories/ace/vote/{memory_id}',
      await t.admin.post(`/memories/ace/vote/${memoryId}`, {
        vote: 'helpful',
        voter_agent_id: 'planner',
        task_id: 'task-1',
      }),
      200,
    );
    conforms(
      'POST',
      '/memories/ace/session',
      await t.admin.post('/memories/ace/session', { session_id: 's-1', agent_id: 'planner' }),
      200,
    );
    conforms(
      'GET',
      '/memories/ace/session/{session_id}',
      await t.admin.get('/memories/ace/session/s-1?agent_id=planner'),
      200,
    );
    conforms('GET', '/security/config', await t.admin.get('/security/config'), 200);
  });

  it('key management and the audit log answer as the document says', async () => {
    const created = conforms(
      'POST',
      '/admin/keys',
      await t.admin.post('/admin/keys', {
        name: 'planner',
        trust_level: 'internal',
        bound_agent_id: 'planner',
      }),
      200,
    );
    assert.equal(typeof created.api_key, 'string');
    const listed = conforms('GET', '/admin/keys', await t.admin.get('/admin/keys'), 200);
    assert.ok(listed.keys.length >= 1);
    const audit = conforms('GET', '/security/audit', await t.admin.get('/security/audit?limit=20'), 200);
    assert.ok(audit.events.length > 0, 'no audit events: their schema was not exercised');
  });

  it('errors (400, 401, 404, 409, 422) carry the one Error body the document declares', async () => {
    const invalid = conforms(
      'POST',
      '/memories/add',
      await t.admin.post('/memories/add', { content: '', agent_id: 'planner' }),
      400,
    );
    assert.equal(invalid.error.reason, 'VALIDATION_FAILED');
    // A 400 the gateway raises itself (unknown query parameter) has the same body.
    const unknownParam = conforms(
      'GET',
      '/memories/{id}',
      await t.admin.get(`/memories/${memoryId}?agentid=planner`),
      400,
    );
    assert.ok((unknownParam.error.details as Detail[]).some(isBadRequest));

    conforms('GET', '/memories/{id}', await new ApiClient(t.baseUrl).get(`/memories/${memoryId}`), 401);
    conforms(
      'GET',
      '/memories/{id}',
      await t.admin.withKey('egk_not_a_key').get(`/memories/${memoryId}`),
      401,
    );
    conforms('GET', '/memories/{id}', await t.admin.get(`/memories/${randomUUID()}`), 404);

    conforms('POST', '/admin/projects', await t.admin.post('/admin/projects', { project_id: 'team-b' }), 200);
    conforms('POST', '/admin/projects', await t.admin.post('/admin/projects', { project_id: 'team-b' }), 409);

    const rejected = conforms(
      'POST',
      '/memories/add',
      await t.admin.post('/memories/add', { content: `deploy token is ${GITHUB_TOKEN}`, agent_id: 'leaky' }),
      422,
    );
    assert.ok(rejected.error.detections.length > 0, 'detections were not exercised');
  });

  it('fails a body that disagrees with the schema (wrong types, unknown or missing fields)', async () => {
    const got = (await t.admin.get<Loose>(`/memories/${memoryId}?agent_id=planner`)).body;
    assert.deepEqual(api.errors('GET', '/memories/{id}', 200, got), []);
    const wrong = [
      { ...got, id: 42 },
      { ...got, content_flags: 'pii:email' },
      { ...got, is_deprecated: 'false' },
      { ...got, agentId: got.agent_id },
      { ...got, metadata: ['not', 'an', 'object'] },
    ];
    for (const body of wrong)
      assert.notDeepEqual(api.errors('GET', '/memories/{id}', 200, body), [], JSON.stringify(body));

    const found = (await t.admin.post<Loose>('/memories/query', { query: 'E4711', agent_id: 'planner' }))
      .body;
    const badScore = structuredClone(found);
    badScore.memories[0].score = String(badScore.memories[0].score);
    assert.notDeepEqual(api.errors('POST', '/memories/query', 200, badScore), []);

    const err = (await t.admin.post<Loose>('/memories/add', { content: '', agent_id: 'planner' })).body;
    assert.deepEqual(api.errors('POST', '/memories/add', 400, err), []);
    const { reason: _reason, ...withoutReason } = err.error;
    assert.notDeepEqual(api.errors('POST', '/memories/add', 400, { error: withoutReason }), []);
    assert.notDeepEqual(
      api.errors('POST', '/memories/add', 400, { error: { ...err.error, status: '400' } }),
      [],
    );
    const badDetail = structuredClone(err);
    const bad = (badDetail.error.details as Detail[]).find(isBadRequest);
    assert.ok(bad, 'the 400 carries no BadRequest detail');
    bad.field_violations = 'content is required';
    assert.notDeepEqual(api.errors('POST', '/memories/add', 400, badDetail), []);
    // A status the operation does not declare is not silently accepted through `default`.
    assert.throws(() => api.errors('POST', '/memories/query', 404, err), /declares no 404/);
  });
});
