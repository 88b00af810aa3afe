import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINES, REPO_ROOT } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const run = promisify(execFile);

interface ErrorBody {
  error: { status: number; reason: string; message: string; details: { field_violations?: Violation[] }[] };
}
interface Violation {
  field: string;
  reason: string;
}
interface KeyBody {
  key_id: string;
  api_key: string;
  key: { bound_agent_id?: string; agent_ids: string[]; any_agent: boolean };
}

const violations = (body: unknown): string[] =>
  ((body as ErrorBody).error.details ?? [])
    .flatMap((d) => d.field_violations ?? [])
    .map((v) => `${v.field}:${v.reason}`);

/**
 * What an unbound key may do (docs/decisions.md): untrusted keys are bound; an unbound internal key
 * acts only for the agents it lists, or for any agent when created with any_agent; a key with
 * neither acts for none. The defect this guards: an unbound key acting as any agent it named could
 * read another agent's private memories and delete or deprecate them by naming their author.
 */
for (const engine of ENGINES) {
  describe(`what an unbound key may do (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let bobPrivate: string;
    let bobGlobal: string;
    let alicePrivate: string;

    const add = async (content: string, agent: string, scope: string) => {
      const res = await t.admin.post<{ id: string }>('/memories/add', { content, agent_id: agent, scope });
      assert.equal(res.status, 200, res.text);
      return res.body.id;
    };
    const createKey = (body: Record<string, unknown>) =>
      t.admin.post<KeyBody>('/admin/keys', { name: 'unbound-keys', ...body });
    const live = async (id: string) =>
      (await t.admin.get<{ is_deprecated: boolean }>(`/memories/${id}`)).body.is_deprecated === false;

    before(async () => {
      t = await startTestEngram(engine);
      bobPrivate = await add('Bob keeps the staging break-glass procedure here.', 'bob', 'agent-private');
      bobGlobal = await add('Bob: deploys freeze on Fridays after 3pm.', 'bob', 'global');
      alicePrivate = await add('Alice drafts the release notes on Thursdays.', 'alice', 'agent-private');
    });
    after(() => t?.stop());

    it('refuses an unbound untrusted key, an internal key naming nobody, and lists where they mean nothing (400, nothing stored)', async () => {
      const before = (await t.admin.get<{ keys: unknown[] }>('/admin/keys')).body.keys.length;
      const cases: [Record<string, unknown>, string][] = [
        [{ trust_level: 'untrusted' }, 'bound_agent_id:REQUIRED'],
        [{ trust_level: 'untrusted', agent_ids: ['alice'] }, 'bound_agent_id:REQUIRED'],
        [{ trust_level: 'untrusted', bound_agent_id: 'alice', any_agent: true }, 'any_agent:INVALID_VALUE'],
        [{ trust_level: 'internal' }, 'bound_agent_id:REQUIRED'],
        [{ trust_level: 'internal', bound_agent_id: 'alice', agent_ids: ['bob'] }, 'agent_ids:INVALID_VALUE'],
        [{ trust_level: 'internal', agent_ids: ['alice'], any_agent: true }, 'agent_ids:INVALID_VALUE'],
        [{ trust_level: 'internal', agent_ids: ['has space'] }, 'agent_ids[0]:INVALID_FORMAT'],
        [
          { trust_level: 'internal', agent_ids: Array.from({ length: 101 }, (_, i) => `a${i}`) },
          'agent_ids:TOO_MANY',
        ],
        [{ trust_level: 'privileged', agent_ids: ['alice'] }, 'agent_ids:INVALID_VALUE'],
        [{ trust_level: 'system', any_agent: true }, 'any_agent:INVALID_VALUE'],
      ];
      for (const [body, expected] of cases) {
        const res = await createKey(body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
        assert.equal((res.body as unknown as ErrorBody).error.reason, 'VALIDATION_FAILED');
        const got = violations(res.body);
        assert.ok(
          got.some((v) => v === expected || (expected.includes('[0]') && v.startsWith('agent_ids[0]:'))),
          `${JSON.stringify(body).slice(0, 80)}: ${got.join(', ')}`,
        );
      }
      assert.equal((await t.admin.get<{ keys: unknown[] }>('/admin/keys')).body.keys.length, before);

      const listing = await createKey({ trust_level: 'internal', agent_ids: ['alice', 'alice', 'carol'] });
      assert.equal(listing.status, 200, listing.text);
      assert.deepEqual(listing.body.key.agent_ids, ['alice', 'carol']);
      assert.equal(listing.body.key.any_agent, false);
      const any = await createKey({ trust_level: 'internal', any_agent: true });
      assert.equal(any.status, 200, any.text);
      assert.deepEqual([any.body.key.agent_ids, any.body.key.any_agent], [[], true]);
    });

    it('a key listing its agents cannot read, deprecate or delete another agent’s memories by naming it', async () => {
      const res = await createKey({ trust_level: 'internal', agent_ids: ['alice'] });
      const alice = t.admin.withKey(res.body.api_key);
      const refused = async (r: Promise<{ status: number; body: unknown; text: string }>) => {
        const got = await r;
        assert.equal(got.status, 403, got.text);
        assert.equal((got.body as ErrorBody).error.reason, 'AGENT_MISMATCH');
        assert.doesNotMatch(got.text, /break-glass|Fridays/, 'no content in the refusal');
      };
      // Another agent's private memory: naming its author is refused; naming nobody, it is not there.
      await refused(alice.get(`/memories/${bobPrivate}?agent_id=bob`));
      assert.equal((await alice.get(`/memories/${bobPrivate}`)).status, 404);
      await refused(alice.post('/memories/query', { query: 'break-glass procedure', agent_id: 'bob' }));
      await refused(alice.post('/memories/export', { agent_id: 'bob' }));
      // Deprecating or deleting by naming the author (author ids are visible on global memories).
      await refused(alice.post(`/memories/${bobGlobal}/deprecate`, { agent_id: 'bob', reason: 'mine now' }));
      await refused(alice.request('DELETE', `/memories/${bobGlobal}?agent_id=bob`));
      await refused(alice.request('DELETE', `/memories/${bobPrivate}?agent_id=bob`));
      await refused(
        alice.post(`/memories/ace/vote/${bobGlobal}`, { vote: 'harmful', voter_agent_id: 'bob' }),
      );
      await refused(alice.post('/memories/add', { content: 'Written in bob’s name.', agent_id: 'bob' }));
      assert.ok(await live(bobGlobal), 'bob’s global memory is untouched');
      assert.ok(await live(bobPrivate), 'bob’s private memory is untouched');
      // As the agent it lists, the key works as before.
      const own = await alice.get<{ content: string }>(`/memories/${alicePrivate}?agent_id=alice`);
      assert.equal(own.status, 200, own.text);
      const hand = await alice.post('/memories/handoff', {
        source_agent_id: 'bob',
        target_agent_id: 'carol',
        task_context: 'deploy freeze',
      });
      assert.equal(hand.status, 403, 'a handoff needs a key acting for its source or its target');
    });

    it('an any_agent key acts for every agent of its project, as it was created to', async () => {
      const res = await createKey({ trust_level: 'internal', any_agent: true });
      const ops = t.admin.withKey(res.body.api_key);
      const read = await ops.get<{ content: string }>(`/memories/${bobPrivate}?agent_id=bob`);
      assert.equal(read.status, 200, read.text);
      assert.match(read.body.content, /break-glass/);
    });

    it('an unbound internal key from before agent lists (neither list nor any_agent) acts for no agent', async () => {
      // What the migration makes of an existing unbound internal key: agent_ids '{}', any_agent false.
      const res = await createKey({ trust_level: 'internal', any_agent: true });
      await t.engram.db.knex('api_keys').where({ key_id: res.body.key_id }).update({ any_agent: false });
      const legacy = t.admin.withKey(res.body.api_key);
      const named = await legacy.get<ErrorBody>(`/memories/${alicePrivate}?agent_id=alice`);
      assert.equal(named.status, 403, named.text);
      assert.equal(named.body.error.reason, 'AGENT_MISMATCH');
      assert.match(named.body.error.message, /acts for no agent/);
      // Naming nobody it acts as itself: it still reads what is global, and owns nothing.
      const global = await legacy.get(`/memories/${bobGlobal}`);
      assert.equal(global.status, 200, global.text);
      assert.equal((await legacy.get(`/memories/${alicePrivate}`)).status, 404);
    });

    it('engram keys create takes --acts-for (repeatable) and --any-agent; keys list shows whom a key acts for', async () => {
      const cli = (...args: string[]) =>
        run(join(REPO_ROOT, 'scripts/engram'), args, {
          env: { ...process.env, ENGRAM_GRPC_ADDR: t.grpcAddress, ENGRAM_API_KEY: t.adminKey },
        });
      const listing = JSON.parse(
        (
          await cli(
            'keys',
            'create',
            '--trust',
            'internal',
            '--acts-for',
            'alice',
            '--acts-for',
            'bob',
            '--json',
          )
        ).stdout,
      ) as KeyBody;
      assert.deepEqual(listing.key.agent_ids, ['alice', 'bob']);
      const any = JSON.parse(
        (await cli('keys', 'create', '--trust', 'internal', '--any-agent', '--json')).stdout,
      ) as KeyBody;
      assert.equal(any.key.any_agent, true);
      await assert.rejects(cli('keys', 'create', '--trust', 'internal'), (err: { stderr: string }) => {
        assert.match(err.stderr, /bound_agent_id/);
        return true;
      });
      const table = (await cli('keys', 'list')).stdout;
      assert.match(table, new RegExp(`${listing.key_id}\\t[^\\t]+\\tinternal\\tfor:alice,bob\\t`));
      assert.match(table, new RegExp(`${any.key_id}\\t[^\\t]+\\tinternal\\tany\\t`));
    });
  });
}
