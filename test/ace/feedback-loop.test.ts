import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { addMemory, eventsOf, expectError, provenanceOf, type MemoryBody, type RunBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface PlaybookBody {
  entries: MemoryBody[];
}
interface CurationBody {
  promoted: MemoryBody[];
  flagged: MemoryBody[];
  consolidation_candidates: {
    memory_id_a: string;
    memory_id_b: string;
    content_a: string;
    content_b: string;
    similarity: number;
  }[];
}
interface ConsolidationBody {
  dry_run: boolean;
  merges: { kept_id: string; deprecated_id: string; similarity: number }[];
}

const QUERY = 'how do I deploy the payments service';

/**
 * The loop a team of agents runs: a strategy is used, the run fails, the failure leaves a reflection
 * and harmful votes, the playbook stops recommending it first, curation flags it, and consolidation
 * merges a duplicate of the strategy that worked.
 */
for (const engine of ENGINES) {
  describe(`ACE feedback loop end to end (${engine})`, function () {
    this.timeout(90_000);
    let t: TestEngram;
    let solver: ApiClient;
    let helper: ApiClient;
    let restartAll: string;
    let rolling: string;
    let rollingCopy: string;
    let reflectionId: string;

    before(async () => {
      t = await startTestEngram(engine);
      solver = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'solver' });
      helper = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'helper' });
      restartAll = await addMemory(solver, {
        content: 'To deploy the payments service, restart every pod at once.',
        memory_type: 'strategy',
      });
      rolling = await addMemory(solver, {
        content: 'To deploy the payments service, roll the pods one at a time behind the canary.',
        memory_type: 'strategy',
      });
      rollingCopy = await addMemory(solver, {
        content: 'To deploy the payments service roll the pods one at a time behind a canary.',
        memory_type: 'strategy',
      });
      // The same advice, private to another agent: the solver must never see or touch it.
      await addMemory(helper, {
        content: 'To deploy the payments service, roll the pods one at a time behind the canary.',
        memory_type: 'strategy',
        scope: 'agent-private',
      });
    });
    after(() => t?.stop());

    const playbook = (body: Record<string, unknown> = {}) =>
      solver.post<PlaybookBody>('/memories/ace/playbook', { query: QUERY, ...body });

    it('starts with the most similar strategy first, every entry carrying effectiveness_score', async () => {
      const res = await playbook();
      assert.equal(res.status, 200, res.text);
      const ids = res.body.entries.map((e) => e.id);
      assert.equal(ids[0], restartAll);
      assert.ok(ids.includes(rolling));
      assert.ok(res.body.entries.every((e) => e.effectiveness_score === 0));
      assert.ok(
        res.body.entries.every((e) => e.agent_id === 'solver'),
        'the private copy of helper never shows',
      );
    });

    it('records a failed run: harmful vote, and a reflection memory derived from the run', async () => {
      const started = await solver.post<RunBody>('/ace/run', {
        run_id: 'deploy-42',
        task_type: 'deploy',
        memory_ids_used: [restartAll],
      });
      assert.equal(started.status, 200, started.text);
      const done = await solver.post<RunBody>('/ace/run/deploy-42/complete', {
        success: false,
        evaluation: {
          error: 'Restarting every pod at once dropped live payment traffic for 90 seconds.',
          error_pattern: 'full-restart-outage',
        },
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'completed');
      assert.equal(done.body.success, false);
      assert.ok(done.body.reflection_id, done.text);
      reflectionId = done.body.reflection_id;

      const reflection = await solver.get<MemoryBody>(`/memories/${reflectionId}`);
      assert.equal(reflection.status, 200, reflection.text);
      assert.equal(reflection.body.memory_type, 'reflection');
      assert.equal(
        reflection.body.content,
        'Restarting every pod at once dropped live payment traffic for 90 seconds.',
      );
      assert.equal(reflection.body.error_pattern, 'full-restart-outage');
      assert.equal(reflection.body.source_trajectory_id, 'deploy-42');
      assert.equal(reflection.body.agent_id, 'solver');
      const prov = await provenanceOf(t, reflectionId);
      assert.deepEqual(prov, { kind: 'run_reflection', depth: 1, source_run_id: 'deploy-42' });

      const vote = await solver.post<{ harmful: number; effectiveness_score: number }>(
        `/memories/ace/vote/${restartAll}`,
        { vote: 'harmful', task_id: 'deploy-42' },
      );
      assert.equal(vote.body.harmful, 1, 'the run already voted; the same voter and task replace, not add');
      assert.equal(vote.body.effectiveness_score, -0.5);
    });

    it('ranks the harmed strategy below the better one, and min_effectiveness filters strictly above', async () => {
      const res = await playbook();
      const ids = res.body.entries.map((e) => e.id);
      assert.ok(ids.indexOf(rolling) < ids.indexOf(restartAll), JSON.stringify(ids));
      assert.equal(res.body.entries.find((e) => e.id === restartAll)?.effectiveness_score, -0.5);

      const ok = await solver.post<RunBody>('/ace/run', {
        run_id: 'deploy-43',
        task_type: 'deploy',
        memory_ids_used: [rolling],
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await solver.post('/ace/run/deploy-43/complete', { success: true })).status, 200);

      const strict = await playbook({ min_effectiveness: 0 });
      assert.deepEqual(
        strict.body.entries.map((e) => e.id),
        [rolling],
      );
      assert.equal(strict.body.entries[0]?.effectiveness_score, 0.5);
      const none = await playbook({ min_effectiveness: 0.5 });
      assert.deepEqual(none.body.entries, [], 'strictly above: 0.5 is not above 0.5');
      const reflections = await playbook({ memory_types: ['reflection'] });
      assert.deepEqual(
        reflections.body.entries.map((e) => e.id),
        [reflectionId],
      );

      const agent = await solver.post<PlaybookBody>('/ace/playbook/agent', {
        query: QUERY,
        task_type: 'deploy',
      });
      assert.equal(agent.status, 200, agent.text);
      assert.equal(agent.body.entries[0]?.id, rolling, 'what helped successful deploy runs comes first');
      expectError(await solver.post('/ace/playbook/agent', { query: QUERY }), 400, 'VALIDATION_FAILED');
      expectError(await playbook({ min_effectiveness: 2 }), 400, 'VALIDATION_FAILED');
      expectError(await playbook({ memory_types: ['nope'] }), 400, 'VALIDATION_FAILED');
      expectError(await playbook({ agent_id: 'helper' }), 403, 'AGENT_MISMATCH');
    });

    it('curation promotes what works, flags what harmed, and lists the duplicate as a candidate', async () => {
      const res = await solver.post<CurationBody>('/ace/curate', { namespace: 'default', top_k: 10 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.promoted.map((m) => [m.id, m.effectiveness_score]),
        [[rolling, 0.5]],
      );
      assert.deepEqual(
        res.body.flagged.map((m) => [m.id, m.effectiveness_score]),
        [[restartAll, -0.5]],
      );
      assert.equal(
        res.body.flagged[0]?.content,
        'To deploy the payments service, restart every pod at once.',
      );
      assert.equal(
        res.body.consolidation_candidates.length,
        1,
        JSON.stringify(res.body.consolidation_candidates),
      );
      const [c] = res.body.consolidation_candidates;
      assert.deepEqual(new Set([c!.memory_id_a, c!.memory_id_b]), new Set([rolling, rollingCopy]));
      assert.match(c!.content_a, /roll the pods one at a time/);
      assert.match(c!.content_b, /roll the pods one at a time/);
      assert.ok(c!.similarity > 0.9);
      const strict = await solver.post<CurationBody>('/ace/curate', { min_effectiveness_threshold: 0.6 });
      assert.deepEqual(strict.body.promoted, []);
      assert.deepEqual(new Set(strict.body.flagged.map((m) => m.id)), new Set([rolling, restartAll]));
      expectError(await solver.post('/ace/curate', { top_k: 0 }), 400, 'VALIDATION_FAILED');
    });

    it('consolidation: dry_run plans without changing anything, apply deprecates the weaker duplicate', async () => {
      expectError(
        await solver.post('/memories/ace/consolidate', { namespace: 'default', use_llm: true }),
        501,
      );
      expectError(
        await solver.post('/memories/ace/consolidate', { similarity_threshold: 1.5 }),
        400,
        'VALIDATION_FAILED',
      );

      const plan = await solver.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace: 'default',
        dry_run: true,
        similarity_threshold: 0.95,
      });
      assert.equal(plan.status, 200, plan.text);
      assert.equal(plan.body.dry_run, true);
      assert.deepEqual(
        plan.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[rolling, rollingCopy]],
      );
      assert.equal((await solver.get<MemoryBody>(`/memories/${rollingCopy}`)).body.is_deprecated, false);
      assert.equal((await eventsOf(t, 'memories_consolidated')).length, 0);

      const applied = await solver.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace: 'default',
        similarity_threshold: 0.95,
      });
      assert.equal(applied.status, 200, applied.text);
      assert.equal(applied.body.dry_run, false);
      assert.deepEqual(
        applied.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[rolling, rollingCopy]],
      );
      const gone = await solver.get<MemoryBody>(`/memories/${rollingCopy}`);
      assert.equal(gone.body.is_deprecated, true);
      assert.equal(gone.body.superseded_by, rolling);
      assert.equal((await solver.get<MemoryBody>(`/memories/${rolling}`)).body.is_deprecated, false);
      const events = await eventsOf(t, 'memories_consolidated', rollingCopy);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.details.kept_id, rolling);
      const after = await playbook();
      assert.ok(!after.body.entries.some((e) => e.id === rollingCopy));
      const again = await solver.post<ConsolidationBody>('/memories/ace/consolidate', {
        similarity_threshold: 0.95,
      });
      assert.deepEqual(again.body.merges, []);
    });

    it('consolidation changes only what the caller may modify', async () => {
      const mine = await addMemory(solver, {
        content: 'Rotate the signing keys every ninety days.',
        namespace: 'ops',
        scope: 'global',
      });
      const theirs = await addMemory(helper, {
        content: 'Rotate the signing keys every ninety days!',
        namespace: 'ops',
        scope: 'global',
      });
      const bySolver = await solver.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace: 'ops',
      });
      assert.equal(bySolver.status, 200, bySolver.text);
      assert.deepEqual(
        bySolver.body.merges,
        [],
        'the weaker copy is helper’s: the solver may not deprecate it',
      );
      assert.equal((await helper.get<MemoryBody>(`/memories/${theirs}`)).body.is_deprecated, false);
      const privileged = await t.admin.createKey({ trust_level: 'privileged' });
      const byAdmin = await privileged.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace: 'ops',
      });
      assert.deepEqual(
        byAdmin.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[mine, theirs]],
      );
      assert.equal((await helper.get<MemoryBody>(`/memories/${theirs}`)).body.superseded_by, mine);
      const unbound = await t.admin.createKey({ trust_level: 'internal', agent_ids: ['ci'] });
      const older = await addMemory(unbound, {
        content: 'Tag releases with the build number.',
        agent_id: 'ci',
        namespace: 'ci',
      });
      const newer = await addMemory(unbound, {
        content: 'Tag releases with the build number!',
        agent_id: 'ci',
        namespace: 'ci',
      });
      const byCi = await unbound.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace: 'ci',
        agent_id: 'ci',
      });
      assert.equal(byCi.status, 200, byCi.text);
      assert.deepEqual(
        byCi.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[older, newer]],
      );
      const merged = await unbound.get<MemoryBody>(`/memories/${newer}?agent_id=ci`);
      assert.equal(merged.body.superseded_by, older, merged.text);
    });

    it('agent playbook prefers what helped completed runs of the requested task type', async () => {
      const ns = 'tasks';
      const forDeploy = await addMemory(solver, {
        content: 'Check the error budget before any release.',
        memory_type: 'strategy',
        namespace: ns,
      });
      const forBackup = await addMemory(solver, {
        content: 'Check the error budget before any restore.',
        memory_type: 'strategy',
        namespace: ns,
      });
      const succeed = async (runId: string, taskType: string, used: string) => {
        const s = await solver.post('/ace/run', {
          run_id: runId,
          task_type: taskType,
          memory_ids_used: [used],
        });
        assert.equal(s.status, 200, s.text);
        const c = await solver.post(`/ace/run/${runId}/complete`, { success: true });
        assert.equal(c.status, 200, c.text);
      };
      await succeed('release-1', 'release', forDeploy);
      await succeed('restore-1', 'restore', forBackup);
      const ask = async (taskType: string) => {
        const res = await solver.post<PlaybookBody>('/ace/playbook/agent', {
          query: 'check the error budget',
          task_type: taskType,
          namespace: ns,
        });
        assert.equal(res.status, 200, res.text);
        return res.body.entries.map((e) => e.id);
      };
      assert.deepEqual(await ask('release'), [forDeploy, forBackup]);
      assert.deepEqual(await ask('restore'), [forBackup, forDeploy]);
    });

    it('keeps other projects out of the playbook, curation and consolidation', async () => {
      const created = await t.admin.post('/admin/projects', { project_id: 'rivals', name: 'Rivals' });
      assert.equal(created.status, 200, created.text);
      const rival = await t.admin.createKey({ trust_level: 'system', project_id: 'rivals' });
      const pb = await rival.post<PlaybookBody>('/memories/ace/playbook', {
        query: QUERY,
        agent_id: 'solver',
      });
      assert.equal(pb.status, 200, pb.text);
      assert.deepEqual(pb.body.entries, []);
      const cur = await rival.post<CurationBody>('/ace/curate', {});
      assert.deepEqual(
        [cur.body.promoted, cur.body.flagged, cur.body.consolidation_candidates],
        [[], [], []],
      );
      const con = await rival.post<ConsolidationBody>('/memories/ace/consolidate', {
        similarity_threshold: 0.5,
      });
      assert.deepEqual(con.body.merges, []);
    });

    it('verifies playbook and curation entries on read: a tampered memory is dropped and recorded', async () => {
      await t.engram.db
        .knex('memories')
        .where({ id: rolling })
        .update({ content: 'To deploy the payments service, skip the canary entirely.' });
      const res = await playbook();
      assert.equal(res.status, 200, res.text);
      assert.ok(!res.body.entries.some((e) => e.id === rolling), 'the tampered row never reaches a prompt');
      const cur = await solver.post<CurationBody>('/ace/curate', {});
      assert.ok(!cur.body.promoted.some((m) => m.id === rolling));
      assert.ok((await eventsOf(t, 'INTEGRITY_FAILED', rolling)).length >= 2);
    });
  });
}
