import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { expectError } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface SessionBody {
  session_id: string;
  agent_id: string;
  completed: string[];
  in_progress: string;
  next: string[];
  blocked: { item: string; reason: string }[];
  summary: string;
  updated_at: string;
}

interface FeatureBody {
  feature_id: string;
  description: string;
  test_steps: string[];
  status: string;
  failure_reason?: string;
  verified_by?: string;
}

for (const engine of ENGINES) {
  describe(`ACE progress sessions and features (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let coder: ApiClient;
    let reviewer: ApiClient;
    let team: ApiClient;

    before(async () => {
      t = await startTestEngram(engine);
      coder = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'coder' });
      reviewer = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'reviewer' });
      team = await t.admin.createKey({ trust_level: 'internal', agent_ids: ['coder', 'reviewer'] });
    });
    after(() => t?.stop());

    const patch = (client: ApiClient, id: string, body: unknown) =>
      client.request<SessionBody>('PATCH', `/memories/ace/session/${id}`, body);

    it('creates a session once (a duplicate is 409) and returns it as itself', async () => {
      const created = await coder.post<SessionBody>('/memories/ace/session', { session_id: 'sprint-1' });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.session_id, 'sprint-1');
      assert.equal(created.body.agent_id, 'coder');
      assert.deepEqual(created.body.completed, []);
      assert.deepEqual(created.body.blocked, []);
      expectError(
        await coder.post('/memories/ace/session', { session_id: 'sprint-1' }),
        409,
        'ALREADY_EXISTS',
      );
      expectError(
        await coder.post('/memories/ace/session', { session_id: 'sprint-2', agent_id: 'reviewer' }),
        403,
        'AGENT_MISMATCH',
      );
      expectError(await coder.post('/memories/ace/session', { session_id: '' }), 400, 'VALIDATION_FAILED');
      expectError(
        await coder.post('/memories/ace/session', { session_id: 'x'.repeat(65) }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('updates: completed is a union, next and blocked replace, a completed item leaves next and blocked', async () => {
      const first = await patch(coder, 'sprint-1', {
        completed: ['parser'],
        in_progress: 'lexer',
        next: ['lexer', 'codegen', 'docs'],
        blocked: [{ item: 'codegen', reason: 'waiting for the IR spec' }],
        summary: 'parser done',
      });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body.completed, ['parser']);
      assert.equal(first.body.in_progress, 'lexer');
      assert.deepEqual(first.body.blocked, [{ item: 'codegen', reason: 'waiting for the IR spec' }]);

      const second = await patch(coder, 'sprint-1', { completed: ['parser', 'lexer', 'codegen'] });
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(
        second.body.completed,
        ['parser', 'lexer', 'codegen'],
        'a union without duplicates, in order',
      );
      assert.deepEqual(second.body.next, ['docs']);
      assert.deepEqual(second.body.blocked, []);
      assert.equal(second.body.in_progress, '');
      assert.equal(second.body.summary, 'parser done', 'fields not given are kept');
      const read = await coder.get<SessionBody>('/memories/ace/session/sprint-1');
      assert.deepEqual(read.body, second.body);
    });

    it('hides a session from other agents (404) and refuses bad updates (400) or unknown sessions (404)', async () => {
      expectError(await reviewer.get('/memories/ace/session/sprint-1'), 404);
      expectError(await patch(reviewer, 'sprint-1', { summary: 'mine now' }), 404);
      expectError(
        await patch(coder, 'sprint-1', { blocked: [{ item: '', reason: 'x' }] }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await patch(coder, 'sprint-1', { next: ['a\u0000b'] }), 400, 'VALIDATION_FAILED');
      expectError(await patch(coder, 'nope', { summary: 'x' }), 404);
      const privileged = await t.admin.createKey({ trust_level: 'privileged' });
      assert.equal((await privileged.get('/memories/ace/session/sprint-1')).status, 200);
    });

    it('walks a feature through every allowed transition and refuses the invalid ones with 409', async () => {
      const created = await coder.post<FeatureBody>('/memories/ace/feature', {
        feature_id: 'login',
        description: 'Users can log in',
        test_steps: ['open /login', 'submit valid credentials', 'see the dashboard'],
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.status, 'pending');
      assert.deepEqual(created.body.test_steps, [
        'open /login',
        'submit valid credentials',
        'see the dashboard',
      ]);
      expectError(await coder.post('/memories/ace/feature', { feature_id: 'login' }), 409, 'ALREADY_EXISTS');

      // pending -> failed
      const failed = await coder.post<FeatureBody>('/memories/ace/feature/login/fail', {
        reason: 'step 3: blank page',
      });
      assert.equal(failed.status, 200, failed.text);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.failure_reason, 'step 3: blank page');
      // failed -> failed is refused
      expectError(
        await coder.post('/memories/ace/feature/login/fail', { reason: 'again' }),
        409,
        'INVALID_TRANSITION',
      );
      // failed -> complete
      // The feature is coder's: another agent's key does not see it; a key acting for coder does.
      expectError(await reviewer.post('/memories/ace/feature/login/complete', { verified_by: 'x' }), 404);
      const done = await team.post<FeatureBody>('/memories/ace/feature/login/complete', {
        verified_by: 'reviewer',
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'complete');
      assert.equal(done.body.verified_by, 'reviewer');
      assert.equal(done.body.failure_reason, undefined, 'a complete feature carries no failure reason');
      // complete -> complete is refused
      expectError(
        await coder.post('/memories/ace/feature/login/complete', { verified_by: 'ci' }),
        409,
        'INVALID_TRANSITION',
      );
      // complete -> failed (a regression)
      const regressed = await coder.post<FeatureBody>('/memories/ace/feature/login/fail', {
        reason: 'regressed in build 12',
      });
      assert.equal(regressed.body.status, 'failed');
      const read = await coder.get<FeatureBody>('/memories/ace/feature/login');
      assert.equal(read.body.status, 'failed');
      assert.equal(read.body.failure_reason, 'regressed in build 12');

      // pending -> complete
      await coder.post('/memories/ace/feature', { feature_id: 'logout', description: 'Users can log out' });
      const direct = await coder.post<FeatureBody>('/memories/ace/feature/logout/complete', {
        verified_by: 'ci',
      });
      assert.equal(direct.body.status, 'complete');

      expectError(await coder.post('/memories/ace/feature/login/complete', {}), 400, 'VALIDATION_FAILED');
      expectError(
        await coder.post('/memories/ace/feature/login/fail', { reason: '' }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await coder.post('/memories/ace/feature/missing/complete', { verified_by: 'ci' }), 404);
      expectError(await coder.get('/memories/ace/feature/missing'), 404);
    });

    it('lists features by status, page by page with next_cursor', async () => {
      for (let i = 0; i < 55; i++) {
        const id = `f-${String(i).padStart(3, '0')}`;
        const res = await coder.post('/memories/ace/feature', {
          feature_id: id,
          description: `feature ${i}`,
        });
        assert.equal(res.status, 200, res.text);
      }
      const pending: string[] = [];
      let cursor = '';
      for (let page = 0; page < 5; page++) {
        const res = await coder.get<{ features: FeatureBody[]; next_cursor: string }>(
          `/memories/ace/features?status=pending${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(res.status, 200, res.text);
        pending.push(...res.body.features.map((f) => f.feature_id));
        cursor = res.body.next_cursor;
        if (cursor === '') break;
      }
      assert.equal(pending.length, 55);
      assert.equal(new Set(pending).size, 55);
      const failed = await coder.get<{ features: FeatureBody[] }>('/memories/ace/features?status=failed');
      assert.deepEqual(
        failed.body.features.map((f) => f.feature_id),
        ['login'],
      );
      expectError(await coder.get('/memories/ace/features?status=done'), 400, 'VALIDATION_FAILED');
      expectError(await coder.get('/memories/ace/features?cursor=%25%25%25'), 400, 'VALIDATION_FAILED');
      const other = await t.admin.post('/admin/projects', { project_id: 'team-b', name: 'Team B' });
      assert.equal(other.status, 200, other.text);
      const stranger = await t.admin.createKey({ trust_level: 'system', project_id: 'team-b' });
      expectError(await stranger.get('/memories/ace/feature/login'), 404);
      const theirs = await stranger.get<{ features: FeatureBody[] }>('/memories/ace/features');
      assert.deepEqual(theirs.body.features, []);
    });
  });
}
