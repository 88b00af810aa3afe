import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { addMemory, eventsOf, expectError, provenanceOf, votesOf, type RunBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`ACE runs (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let worker: ApiClient;
    let other: ApiClient;
    let strategy: string;
    let checklist: string;
    let othersPrivate: string;

    before(async () => {
      t = await startTestEngram(engine);
      worker = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'worker' });
      other = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'other' });
      strategy = await addMemory(worker, {
        content: 'Run the migrations before deploying the API.',
        memory_type: 'strategy',
        scope: 'global',
      });
      checklist = await addMemory(worker, {
        content: 'My deploy checklist: migrations, smoke test, announce.',
      });
      othersPrivate = await addMemory(other, { content: 'Other agent private deploy notes.' });
    });
    after(() => t?.stop());

    it('starts a run, reads it back, and a successful completion votes helpful on every used memory once', async () => {
      const started = await worker.post<RunBody>('/ace/run', {
        run_id: 'deploy-1',
        task_type: 'deploy',
        memory_ids_used: [strategy, checklist],
      });
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'started');
      assert.equal(started.body.agent_id, 'worker');
      assert.deepEqual(started.body.memory_ids_used, [strategy, checklist]);
      assert.equal(started.body.success, undefined);
      const read = await worker.get<RunBody>('/ace/run/deploy-1');
      assert.deepEqual(read.body, started.body);

      const done = await worker.post<RunBody>('/ace/run/deploy-1/complete', {
        success: true,
        evaluation: { duration_s: 42, notes: 'clean' },
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'completed');
      assert.equal(done.body.success, true);
      assert.deepEqual(done.body.evaluation, { duration_s: 42, notes: 'clean' });
      assert.equal(done.body.reflection_id, undefined);
      assert.ok(done.body.completed_at);
      for (const id of [strategy, checklist]) {
        assert.deepEqual(await votesOf(t, id), [
          { voter_agent_id: 'worker', task_id: 'deploy-1', vote: 'helpful' },
        ]);
      }
      const events = await eventsOf(t, 'RUN_COMPLETED');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.details.run_id, 'deploy-1');
    });

    it('refuses a second completion with 409 and never votes twice', async () => {
      const again = await worker.post('/ace/run/deploy-1/complete', {
        success: false,
        evaluation: { error: 'late' },
      });
      expectError(again, 409, 'RUN_ALREADY_COMPLETED');
      assert.deepEqual(await votesOf(t, strategy), [
        { voter_agent_id: 'worker', task_id: 'deploy-1', vote: 'helpful' },
      ]);
      const run = await worker.get<RunBody>('/ace/run/deploy-1');
      assert.equal(run.body.success, true, 'the first outcome stands');
      const concurrent = await worker.post<RunBody>('/ace/run', {
        run_id: 'deploy-2',
        task_type: 'deploy',
        memory_ids_used: [strategy],
      });
      assert.equal(concurrent.status, 200, concurrent.text);
      const both = await Promise.all([
        worker.post('/ace/run/deploy-2/complete', { success: true }),
        worker.post('/ace/run/deploy-2/complete', { success: true }),
      ]);
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
      assert.equal((await votesOf(t, strategy)).filter((v) => v.task_id === 'deploy-2').length, 1);
    });

    it('derives reflections one level deeper than the deepest memory a failed run used', async () => {
      const fail = async (runId: string, used: string[], error: string) => {
        const s = await worker.post('/ace/run', {
          run_id: runId,
          task_type: 'migrate',
          memory_ids_used: used,
        });
        assert.equal(s.status, 200, s.text);
        const c = await worker.post<RunBody>(`/ace/run/${runId}/complete`, {
          success: false,
          evaluation: { error },
        });
        assert.equal(c.status, 200, c.text);
        return c.body.reflection_id!;
      };
      const first = await fail('migrate-1', [strategy], 'The migration ran before the backup finished.');
      assert.equal((await provenanceOf(t, first))?.depth, 1);
      const second = await fail(
        'migrate-2',
        [first, checklist],
        'Waiting for the backup timed out after an hour.',
      );
      assert.equal((await provenanceOf(t, second))?.depth, 2);
      const bare = await fail('migrate-3', [], 'The job crashed at start.');
      assert.equal((await provenanceOf(t, bare))?.depth, 0, 'a run that used nothing derives from nothing');
      assert.deepEqual(
        (await votesOf(t, first)).map((v) => `${v.voter_agent_id}/${v.task_id}/${v.vote}`),
        ['worker/migrate-2/harmful'],
      );
    });

    it('stores a failed run’s reflection in the namespace of the memories it used', async () => {
      const inNs = (content: string, namespace: string) =>
        addMemory(worker, { content, namespace, memory_type: 'strategy', scope: 'global' });
      const cardRetry = await inNs('Retry a declined card payment once after 30 seconds.', 'payments');
      const refunds = await inNs('Refunds go through the ledger service, never the card API.', 'payments');
      const paging = await inNs('Page the payments on-call before a ledger migration.', 'ops');
      const fail = async (runId: string, used: string[]) => {
        const s = await worker.post('/ace/run', {
          run_id: runId,
          task_type: 'refund',
          memory_ids_used: used,
        });
        assert.equal(s.status, 200, s.text);
        const c = await worker.post<RunBody>(`/ace/run/${runId}/complete`, {
          success: false,
          evaluation: { error: `Run ${runId}: the refund was charged twice.` },
        });
        assert.equal(c.status, 200, c.text);
        const reflection = await worker.get<{ namespace: string }>(`/memories/${c.body.reflection_id}`);
        assert.equal(reflection.status, 200, reflection.text);
        return { id: c.body.reflection_id!, namespace: reflection.body.namespace };
      };
      const shared = await fail('refund-1', [cardRetry, refunds]);
      assert.equal(shared.namespace, 'payments', 'the namespace every used memory shares');
      assert.equal(
        (await fail('refund-2', [paging, cardRetry, refunds])).namespace,
        'payments',
        'the most common',
      );
      assert.equal((await fail('refund-3', [paging, cardRetry])).namespace, 'ops', 'a tie: the first listed');
      assert.equal((await fail('refund-4', [])).namespace, 'default', 'no memory used');
      // Where the team looks for lessons about payments, the lesson is there.
      const playbook = await worker.post<{ entries: { id: string }[] }>('/memories/ace/playbook', {
        query: 'the refund was charged twice',
        namespace: 'payments',
        memory_types: ['reflection'],
      });
      assert.equal(playbook.status, 200, playbook.text);
      assert.ok(
        playbook.body.entries.some((e) => e.id === shared.id),
        playbook.text,
      );
    });

    it('lets only one of two concurrent failing completions through: one reflection, one vote', async () => {
      const s = await worker.post('/ace/run', {
        run_id: 'race-1',
        task_type: 'migrate',
        memory_ids_used: [checklist],
      });
      assert.equal(s.status, 200, s.text);
      const body = { success: false, evaluation: { error: 'Both workers raced on the same lock.' } };
      const both = await Promise.all([
        worker.post<RunBody>('/ace/run/race-1/complete', body),
        worker.post<RunBody>('/ace/run/race-1/complete', body),
      ]);
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
      assert.equal((await votesOf(t, checklist)).filter((v) => v.task_id === 'race-1').length, 1);
      const reflections = (
        await t.engram.db
          .knex('memory_provenance')
          .where({ source_run_id: 'race-1' })
          .count<{ n: string }[]>('* as n')
      )[0]!;
      assert.equal(Number(reflections.n), 1, 'the same lesson is stored once');
    });

    it('refuses a duplicate run_id (409), used ids the agent cannot read (404), and bad input (400)', async () => {
      expectError(
        await worker.post('/ace/run', { run_id: 'deploy-1', task_type: 'deploy' }),
        409,
        'ALREADY_EXISTS',
      );
      const hidden = await worker.post('/ace/run', {
        run_id: 'deploy-3',
        task_type: 'deploy',
        memory_ids_used: [strategy, othersPrivate],
      });
      expectError(hidden, 404);
      assert.match((hidden.body as { error: { message: string } }).error.message, /memory_ids_used\[1\]/);
      expectError(await worker.get('/ace/run/deploy-3'), 404);
      expectError(
        await worker.post('/ace/run', { run_id: 'deploy-4', task_type: 'deploy', memory_ids_used: ['nope'] }),
        404,
      );
      expectError(
        await worker.post('/ace/run', { run_id: 'has space', task_type: 'deploy' }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await worker.post('/ace/run', { run_id: 'deploy-5' }), 400, 'VALIDATION_FAILED');
      expectError(await worker.post('/ace/run/missing/complete', { success: true }), 404);
      expectError(await worker.get('/ace/run/missing'), 404);
    });

    it('binds run agents to the key: starting another agent’s run is 403, completing one is 404', async () => {
      expectError(
        await worker.post('/ace/run', { run_id: 'x-1', agent_id: 'other', task_type: 'deploy' }),
        403,
        'AGENT_MISMATCH',
      );
      const theirs = await other.post<RunBody>('/ace/run', {
        run_id: 'other-1',
        task_type: 'deploy',
        memory_ids_used: [strategy],
      });
      assert.equal(theirs.status, 200, theirs.text);
      // Another agent's run does not exist for this key (its memory ids and evaluation are not ours).
      expectError(await worker.get('/ace/run/other-1'), 404);
      expectError(await worker.post('/ace/run/other-1/complete', { success: false }), 404);
      assert.equal((await other.get<RunBody>('/ace/run/other-1')).body.status, 'started');
      assert.equal((await votesOf(t, strategy)).filter((v) => v.task_id === 'other-1').length, 0);
    });

    it('keeps runs inside their project', async () => {
      const created = await t.admin.post('/admin/projects', { project_id: 'team-runs', name: 'Runs team' });
      assert.equal(created.status, 200, created.text);
      const stranger = await t.admin.createKey({ trust_level: 'system', project_id: 'team-runs' });
      expectError(await stranger.get('/ace/run/deploy-1'), 404);
      expectError(await stranger.post('/ace/run/other-1/complete', { success: true }), 404);
      expectError(
        await stranger.post('/ace/run', { run_id: 'r', task_type: 'deploy', memory_ids_used: [strategy] }),
        404,
      );
      const own = await stranger.post<RunBody>('/ace/run', {
        run_id: 'deploy-1',
        agent_id: 'bot',
        task_type: 'deploy',
      });
      assert.equal(own.status, 200, 'the same run_id is free in another project');
    });
  });
}
