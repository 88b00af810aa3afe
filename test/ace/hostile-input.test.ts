import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { addMemory } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** Malformed and hostile bodies on every feedback-loop route: a clear 4xx, never a 5xx. */
for (const engine of ENGINES) {
  describe(`ACE routes under hostile input (${engine})`, function () {
    this.timeout(90_000);
    let t: TestEngram;
    let agent: ApiClient;
    let memoryId: string;

    before(async () => {
      t = await startTestEngram(engine);
      agent = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'fuzz' });
      memoryId = await addMemory(agent, { content: 'A strategy to vote on.', memory_type: 'strategy' });
      assert.equal((await agent.post('/ace/run', { run_id: 'fuzz-run', task_type: 't' })).status, 200);
    });
    after(() => t?.stop());

    const deep = (n: number): unknown => (n === 0 ? 'x' : { a: deep(n - 1) });
    const values: unknown[] = [
      null,
      true,
      -1,
      1e308,
      '',
      'x'.repeat(70_000),
      '\u0000\u0007\u202e',
      '../../etc/passwd',
      "'; drop table runs; --",
      [],
      ['a', 1, null],
      { nested: deep(40) },
    ];
    const routes: [string, string, (v: unknown) => unknown][] = [
      ['POST', `/memories/ace/vote/MEMORY`, (v) => ({ vote: v, voter_agent_id: v, context: v, task_id: v })],
      [
        'POST',
        '/memories/ace/delta',
        (v) => ({ operations: [{ type: 'deprecate', memory_id: v, superseded_by: v }] }),
      ],
      ['POST', '/memories/ace/delta', (v) => ({ operations: v })],
      [
        'POST',
        '/memories/ace/reflection',
        (v) => ({ content: v, applicable_contexts: v, source_trajectory_id: v }),
      ],
      ['POST', '/memories/ace/session', (v) => ({ session_id: v })],
      ['PATCH', '/memories/ace/session/s1', (v) => ({ completed: v, blocked: v, summary: v })],
      ['POST', '/memories/ace/feature', (v) => ({ feature_id: v, test_steps: v })],
      ['POST', '/memories/ace/feature/f1/fail', (v) => ({ reason: v })],
      ['POST', '/ace/run', (v) => ({ run_id: v, task_type: v, memory_ids_used: v })],
      ['POST', '/ace/run/fuzz-run/complete', (v) => ({ success: v, evaluation: v })],
      ['POST', '/ace/curate', (v) => ({ namespace: v, top_k: v, min_effectiveness_threshold: v })],
      [
        'POST',
        '/memories/ace/consolidate',
        (v) => ({ namespace: v, similarity_threshold: v, dry_run: true }),
      ],
      ['POST', '/memories/ace/playbook', (v) => ({ query: v, min_effectiveness: v, memory_types: v })],
      ['POST', '/ace/playbook/agent', (v) => ({ query: 'q', task_type: v })],
    ];

    it('never answers 5xx', async () => {
      const failures: string[] = [];
      for (const [method, path, body] of routes) {
        for (const v of values) {
          const res = await agent.request(method, path.replace('MEMORY', memoryId), body(v));
          if (res.status >= 500)
            failures.push(`${method} ${path} ${JSON.stringify(v).slice(0, 40)} -> ${res.status} ${res.text}`);
        }
      }
      assert.deepEqual(failures, []);
      const run = await agent.get<{ status: string }>('/ace/run/fuzz-run');
      assert.equal(run.status, 200);
    });
  });
}
