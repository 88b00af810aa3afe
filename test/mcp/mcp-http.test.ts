import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  auditDetails,
  AWS_KEY_ID,
  call,
  callError,
  callOk,
  createKey,
  memoriesWithContent,
  provenanceOf,
  textOf,
  type TestKey,
} from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** The ten tools of the issue, written out independently of libs/mcp's own list. */
const TOOLS = [
  'complete_run',
  'get_memory',
  'handoff',
  'load_context',
  'playbook',
  'recall',
  'reflect',
  'remember',
  'start_run',
  'vote',
];

interface Written {
  id: string;
  deduplicated: boolean;
  scope: string;
  memory_type: string;
}
interface Listed {
  memories: { id: string; content: string; agent_id: string }[];
}

describe('MCP over Streamable HTTP at /mcp (the MCP SDK client against an embedded Engram)', function () {
  this.timeout(90_000);
  let t: TestEngram;
  let planner: TestKey; // internal, bound to agent "planner"
  const clients: Client[] = [];

  /** An MCP SDK client connected to the gateway's /mcp with the key. */
  async function connect(key: string | undefined): Promise<Client> {
    const client = new Client({ name: 'engram-mcp-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  before(async () => {
    t = await startTestEngram('pglite');
    planner = await createKey(t, { trust_level: 'internal', bound_agent_id: 'planner' });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.stop();
  });

  it('lists the ten tools with descriptions, input schemas and annotations', async () => {
    const client = await connect(planner.key);
    assert.equal(client.getServerVersion()?.name, 'engram');
    assert.match(client.getInstructions() ?? '', /recall/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
    for (const tool of tools) {
      assert.ok((tool.description ?? '').length > 80, `${tool.name} has a description an agent can use`);
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok((schema as { description?: string }).description, `${tool.name}.${field} is described`);
      }
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual(byName.get('remember')?.inputSchema.required, ['content']);
    assert.deepEqual(byName.get('recall')?.inputSchema.required, ['query']);
    assert.deepEqual([...(byName.get('vote')?.inputSchema.required ?? [])].sort(), ['memory_id', 'vote']);
    const vote = byName.get('vote')?.inputSchema.properties?.vote as { enum?: string[] };
    assert.deepEqual(vote.enum, ['helpful', 'harmful']);
    for (const name of ['recall', 'get_memory', 'load_context', 'handoff', 'playbook'])
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
    for (const name of ['remember', 'vote', 'reflect', 'start_run', 'complete_run']) {
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, name);
      assert.equal(byName.get(name)?.annotations?.destructiveHint, false, name);
    }
    assert.equal(byName.get('start_run')?.annotations?.idempotentHint, false);
  });

  it('remember, then recall finds it and get_memory returns it; provenance says channel mcp', async () => {
    const client = await connect(planner.key);
    const content = 'Deploys of the payments service fail with E4711 when the canary is unhealthy.';
    const { structured: written, text } = await callOk<Written>(client, 'remember', {
      content,
      memory_type: 'semantic',
      metadata: { tags: ['deploy'] },
    });
    assert.match(text, new RegExp(`^stored: id=${written.id} `));
    assert.equal(written.deduplicated, false);
    assert.equal(written.memory_type, 'semantic');

    const recalled = await callOk<Listed>(client, 'recall', { query: 'what does E4711 mean', top_k: 5 });
    assert.equal(recalled.structured.memories[0]?.id, written.id);
    assert.equal(recalled.structured.memories[0]?.agent_id, 'planner');
    assert.ok(recalled.text.includes(content), 'the model reads the content in the text');

    const got = await callOk<{ id: string; content: string; metadata: unknown }>(client, 'get_memory', {
      id: written.id,
    });
    assert.equal(got.structured.content, content);
    assert.deepEqual(got.structured.metadata, { tags: ['deploy'] });

    const p = await provenanceOf(t, written.id);
    assert.deepEqual([p.channel, p.kind, p.agent_id, p.api_key_id], ['mcp', 'add', 'planner', planner.keyId]);
    const created = await auditDetails(t, 'MEMORY_CREATED', 'planner');
    assert.ok(created.length > 0);

    // The same write again is deduplicated, as the tool's idempotentHint says.
    const again = await callOk<Written>(client, 'remember', { content, memory_type: 'semantic' });
    assert.equal(again.structured.id, written.id);
    assert.equal(again.structured.deduplicated, true);
  });

  it('recall reads the dates of a question against as_of, and refuses a bad one naming it', async () => {
    const client = await connect(planner.key);
    for (const [month, occurred] of [
      ['May', '2025-05-14T09:00:00Z'],
      ['July', '2025-07-09T09:00:00Z'],
    ] as const)
      await callOk(client, 'remember', {
        content: `We moved the invoice archive to cold storage in ${month === 'May' ? 'spring' : 'summer'}.`,
        metadata: { occurred_at: occurred },
      });
    const asked = { query: 'when did we move the invoice archive last May', top_k: 5 };
    const inJune = await callOk<Listed>(client, 'recall', { ...asked, as_of: '2025-06-20T12:00:00Z' });
    assert.match(inJune.structured.memories[0]?.content ?? '', /in spring/);
    const bad = await callError(client, 'recall', { ...asked, as_of: 'last Tuesday' });
    assert.equal(bad.error.status, 400);
    assert.match(bad.text, /as_of/);
  });

  it('load_context packs the relevant memories into the token budget', async () => {
    const client = await connect(planner.key);
    await callOk(client, 'remember', { content: 'The staging database is reset every Sunday at 02:00 UTC.' });
    const { structured, text } = await callOk<{
      token_budget: number;
      tokens_used: number;
      items: { content: string; tokens: number }[];
    }>(client, 'load_context', { query: 'when is the staging database reset', token_budget: 500 });
    assert.equal(structured.token_budget, 500);
    assert.ok(structured.items.some((i) => i.content.includes('every Sunday')));
    assert.ok(structured.tokens_used > 0 && structured.tokens_used <= 500);
    assert.match(text, /^Context for planner \(\d+ of 500 tokens/);
    // Without a budget the tool's default applies (the API itself requires one).
    const byDefault = await callOk<{ token_budget: number }>(client, 'load_context', { query: 'staging' });
    assert.equal(byDefault.structured.token_budget, 4000);
  });

  it('start_run then complete_run: a failure votes harmful and leaves a reflection; a second completion is refused', async () => {
    const client = await connect(planner.key);
    const used = await callOk<Written>(client, 'remember', {
      content: 'Run the migrations before restarting the API pods.',
      memory_type: 'procedural',
      steps: ['kubectl apply -f migrate.yaml', 'kubectl rollout restart deploy/api'],
    });
    const started = await callOk<{ status: string; memory_ids_used: string[] }>(client, 'start_run', {
      run_id: 'run-mcp-1',
      task_type: 'deploy',
      memory_ids_used: [used.structured.id],
    });
    assert.equal(started.structured.status, 'started');
    assert.deepEqual(started.structured.memory_ids_used, [used.structured.id]);
    const done = await callOk<{ status: string; success: boolean; reflection_id?: string }>(
      client,
      'complete_run',
      {
        run_id: 'run-mcp-1',
        success: false,
        evaluation: {
          error: 'The API pods crash-looped: migrations must finish first.',
          error_pattern: 'CrashLoopBackOff',
        },
      },
    );
    assert.equal(done.structured.status, 'completed');
    assert.equal(done.structured.success, false);
    assert.ok(done.structured.reflection_id, 'a failed run records a reflection');
    // A write ace-feedback derives from an MCP call records the channel the call came in by.
    const p = await provenanceOf(t, done.structured.reflection_id);
    assert.deepEqual([p.channel, p.kind, p.source_run_id], ['mcp', 'run_reflection', 'run-mcp-1']);
    const book = await callOk<{ entries: { id: string; effectiveness_score?: number }[] }>(
      client,
      'playbook',
      {
        query: 'restarting the API pods after migrations',
        memory_types: ['procedural'],
      },
    );
    const entry = book.structured.entries.find((e) => e.id === used.structured.id);
    assert.ok(entry, book.text);
    assert.ok((entry.effectiveness_score ?? 0) < 0, 'the failure voted harmful');
    assert.match(book.text, /effectiveness=-0\.5/);

    const twice = await callError(client, 'complete_run', { run_id: 'run-mcp-1', success: true });
    assert.equal(twice.error.reason, 'RUN_ALREADY_COMPLETED');
    assert.equal(twice.error.status, 409);
  });

  it('vote changes effectiveness; reflect stores a lesson that the playbooks return', async () => {
    const client = await connect(planner.key);
    const strategy = await callOk<Written>(client, 'remember', {
      content: 'Roll out payment-service changes behind a feature flag at 5 percent first.',
      memory_type: 'strategy',
    });
    const voted = await callOk<{ helpful: number; harmful: number; effectiveness_score: number }>(
      client,
      'vote',
      {
        memory_id: strategy.structured.id,
        vote: 'helpful',
        task_id: 'task-7',
        context: 'the flag caught a bad release',
      },
    );
    assert.deepEqual([voted.structured.helpful, voted.structured.harmful], [1, 0]);
    assert.ok(voted.structured.effectiveness_score > 0);
    assert.match(voted.text, /^Recorded helpful vote on /);

    const reflection = await callOk<Written>(client, 'reflect', {
      content: 'Payment webhooks retried without idempotency keys charged customers twice.',
      error_pattern: 'duplicate charge',
      correct_approach: 'Send an Idempotency-Key with every webhook retry.',
      applicable_contexts: ['payments'],
    });
    assert.equal(reflection.structured.memory_type, 'reflection');
    const stored = await callOk<{ metadata: Record<string, unknown> }>(client, 'get_memory', {
      id: reflection.structured.id,
    });
    assert.equal(
      stored.structured.metadata.correct_approach,
      'Send an Idempotency-Key with every webhook retry.',
    );
    const reflected = await provenanceOf(t, reflection.structured.id);
    assert.deepEqual([reflected.channel, reflected.kind], ['mcp', 'reflection']);

    const book = await callOk<{ entries: { id: string }[] }>(client, 'playbook', {
      query: 'rolling out payment changes and webhooks',
      top_k: 10,
    });
    const ids = book.structured.entries.map((e) => e.id);
    assert.ok(ids.includes(strategy.structured.id) && ids.includes(reflection.structured.id), book.text);
    const byTask = await callOk<{ entries: { id: string }[] }>(client, 'playbook', {
      query: 'rolling out payment changes',
      task_type: 'deploy',
    });
    assert.ok(
      byTask.structured.entries.some((e) => e.id === strategy.structured.id),
      byTask.text,
    );
    const mixed = await callError(client, 'playbook', {
      query: 'x',
      task_type: 'deploy',
      min_effectiveness: 0,
    });
    assert.equal(mixed.error.reason, 'VALIDATION_FAILED');
  });

  it('handoff gives the target only what it may read', async () => {
    const client = await connect(t.adminKey);
    const shared = await callOk<Written>(client, 'remember', {
      content: 'The release checklist lives in docs/release.md and must be followed for every release.',
      agent_id: 'releaser',
      scope: 'agent-shared',
      shared_with: ['successor'],
    });
    const secret = await callOk<Written>(client, 'remember', {
      content: 'My own scratch notes about the release, not for anyone else.',
      agent_id: 'releaser',
      scope: 'agent-private',
    });
    const { structured, text } = await callOk<{ target_agent_id: string; memories: { id: string }[] }>(
      client,
      'handoff',
      {
        source_agent_id: 'releaser',
        target_agent_id: 'successor',
        task_context: 'finish the release checklist',
      },
    );
    assert.equal(structured.target_agent_id, 'successor');
    const ids = structured.memories.map((m) => m.id);
    assert.ok(ids.includes(shared.structured.id), text);
    assert.ok(!ids.includes(secret.structured.id), 'a private memory of the source is not handed off');
  });

  it('a key bound to one agent cannot act as another: AGENT_MISMATCH, nothing stored', async () => {
    const client = await connect(planner.key);
    const content = 'Written by planner pretending to be the reviewer.';
    const { error, text } = await callError(client, 'remember', { content, agent_id: 'reviewer' });
    assert.equal(error.reason, 'AGENT_MISMATCH');
    assert.equal(error.status, 403);
    assert.match(text, /^AGENT_MISMATCH \(HTTP 403\): /);
    assert.deepEqual(await memoriesWithContent(t, content), []);
    const vote = await callError(client, 'vote', {
      memory_id: '01890000-0000-7000-8000-000000000000',
      vote: 'helpful',
      voter_agent_id: 'reviewer',
    });
    assert.equal(vote.error.reason, 'AGENT_MISMATCH');
  });

  it('a write the screening refuses is a tool error with the reason and detections, never the secret', async () => {
    const client = await connect(planner.key);
    const content = `Use the deploy user with access key ${AWS_KEY_ID} for the bucket.`;
    const { error, text } = await callError(client, 'remember', { content });
    assert.equal(error.reason, 'SECURITY_REJECTED');
    assert.equal(error.status, 422);
    assert.ok(
      error.detections.some((d) => d.category === 'secrets' && d.action === 'reject'),
      text,
    );
    assert.match(text, /detection: secrets:\S+ -> reject/);
    assert.ok(!text.includes(AWS_KEY_ID) && !JSON.stringify(error).includes(AWS_KEY_ID));
    assert.deepEqual(await memoriesWithContent(t, content), []);
    const rejected = await auditDetails(t, 'SECURITY_REJECTED', 'planner');
    assert.deepEqual(
      rejected.map((d) => d.channel),
      ['mcp'],
    );
  });

  it('refuses a request without a key, or with a key the API does not know, with 401 before serving anything', async () => {
    const post = (authorization?: string) =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const wrongKey = 'egk_not_a_key_of_this_instance_0123456789';
    for (const authorization of [undefined, `Bearer ${wrongKey}`]) {
      const res = await post(authorization);
      assert.equal(res.status, 401, authorization);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const text = await res.text();
      const body = JSON.parse(text) as { error: { status: number; reason: string } };
      assert.deepEqual([body.error.status, body.error.reason], [401, 'UNAUTHENTICATED']);
      assert.ok(!text.includes(wrongKey), 'the key is never echoed');
    }
    await assert.rejects(connect(undefined));
    await assert.rejects(connect(wrongKey), 'initialize with a wrong key fails');
    const listed = await post(`Bearer ${planner.key}`);
    assert.equal(listed.status, 200, 'a valid key lists the tools');
  });

  it('arguments that break a tool schema are a tool error, and the server keeps serving', async () => {
    const client = await connect(planner.key);
    const bad = await call(client, 'vote', { memory_id: 'x', vote: 'maybe' });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /vote/);
    const empty = await callError(client, 'remember', { content: '   ' });
    assert.equal(empty.error.reason, 'VALIDATION_FAILED');
    assert.ok(empty.error.field_violations.some((v) => v.field === 'content'));
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOLS.length);
  });
});
