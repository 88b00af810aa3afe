import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { addMemory, eventsOf, expectError, votesOf, type VoteBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`ACE votes (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let alice: ApiClient;
    let bob: ApiClient;
    let globalId: string;
    let privateId: string;

    before(async () => {
      t = await startTestEngram(engine);
      alice = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'alice' });
      bob = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'bob' });
      globalId = await addMemory(alice, {
        content: 'Retry flaky uploads with exponential backoff.',
        memory_type: 'strategy',
        scope: 'global',
      });
      privateId = await addMemory(alice, { content: 'My own scratch note about uploads.' });
    });
    after(() => t?.stop());

    const vote = (client: ApiClient, id: string, body: Record<string, unknown>) =>
      client.post<VoteBody>(`/memories/ace/vote/${id}`, body);

    it('counts helpful and harmful votes and reports (helpful - harmful) / (total + 1)', async () => {
      const first = await vote(bob, globalId, {
        vote: 'helpful',
        voter_agent_id: 'bob',
        task_id: 't1',
        context: 'worked',
      });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body, { memory_id: globalId, helpful: 1, harmful: 0, effectiveness_score: 0.5 });
      const second = await vote(alice, globalId, { vote: 'harmful', task_id: 't1' });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.helpful, 1);
      assert.equal(second.body.harmful, 1);
      assert.equal(second.body.effectiveness_score, 0);
      assert.equal((await eventsOf(t, 'VOTED', globalId)).length, 2);
    });

    it('keeps one ballot per voter: a repeated vote replaces the earlier one, whatever its task_id', async () => {
      const again = await vote(bob, globalId, { vote: 'harmful', task_id: 't1' });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.helpful, 0, 'bob changed his mind: his helpful vote is gone');
      assert.equal(again.body.harmful, 2);
      const other = await vote(bob, globalId, { vote: 'helpful', task_id: 't2' });
      assert.equal(other.body.helpful, 1, 'bob is one voice: his vote for t2 replaced the one for t1');
      assert.equal(other.body.harmful, 1);
      assert.equal(other.body.effectiveness_score, 0);
      assert.deepEqual(
        (await votesOf(t, globalId)).map((v) => `${v.voter_agent_id}/${v.task_id}/${v.vote}`),
        ['alice/t1/harmful', 'bob/t2/helpful'],
      );
    });

    it('answers 404 for a memory the voter cannot read, a missing one or a malformed id', async () => {
      expectError(await vote(bob, privateId, { vote: 'helpful' }), 404);
      expectError(await vote(bob, '0190e0a0-0000-7000-8000-000000000000', { vote: 'helpful' }), 404);
      expectError(await vote(bob, 'not-an-id', { vote: 'helpful' }), 404);
      assert.deepEqual(await votesOf(t, privateId), []);
      const own = await vote(alice, privateId, { vote: 'helpful' });
      assert.equal(own.status, 200, own.text);
    });

    it('refuses a bound key voting as another agent (403 AGENT_MISMATCH) and bad input (400)', async () => {
      expectError(
        await vote(bob, globalId, { vote: 'helpful', voter_agent_id: 'alice' }),
        403,
        'AGENT_MISMATCH',
      );
      expectError(await vote(bob, globalId, { vote: 'great' }), 400, 'VALIDATION_FAILED');
      expectError(
        await vote(bob, globalId, { vote: 'helpful', task_id: 'bad id with spaces' }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await vote(bob, globalId, { vote: 'helpful', context: 'x'.repeat(2001) }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(
        await vote(bob, globalId, { vote: 'helpful', context: 'bell \u0007' }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('keeps projects apart: a key of another project cannot see or vote on the memory', async () => {
      const created = await t.admin.post('/admin/projects', { project_id: 'other-team', name: 'Other team' });
      assert.equal(created.status, 200, created.text);
      const stranger = await t.admin.createKey({ trust_level: 'system', project_id: 'other-team' });
      expectError(await vote(stranger, globalId, { vote: 'harmful', voter_agent_id: 'eve' }), 404);
      assert.equal((await votesOf(t, globalId)).filter((v) => v.voter_agent_id === 'eve').length, 0);
    });
  });
}
