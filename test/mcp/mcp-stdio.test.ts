import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { compiledEntry, REPO_ROOT } from '@engram/testing';
import { callError, callOk, createKey, provenanceOf, type TestKey } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/**
 * `engram mcp` as an MCP client runs it: the compiled CLI as a child process speaking MCP on its
 * stdin and stdout (`make build` first), pointed at an embedded Engram's REST gateway.
 */
describe('engram mcp (stdio, the MCP SDK client spawning the compiled CLI)', function () {
  this.timeout(90_000);
  let t: TestEngram;
  let key: TestKey;
  let client: Client;
  let stderr = '';

  before(async () => {
    t = await startTestEngram('pglite');
    key = await createKey(t, { trust_level: 'internal', bound_agent_id: 'stdio-agent' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...compiledEntry('services/cli', 'engram'), 'mcp'],
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ENGRAM_URL: t.baseUrl, ENGRAM_API_KEY: key.key },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'engram-stdio-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    await t?.stop();
  });

  it('lists the ten tools and says on stderr (never stdout) what it serves, without the key', async () => {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 10);
    assert.ok(
      tools.some((tool) => tool.name === 'remember' && tool.inputSchema.required?.includes('content')),
    );
    assert.match(stderr, new RegExp(`^engram mcp: serving 10 tools over stdio for ${t.baseUrl}\\n`));
    assert.ok(!stderr.includes(key.key));
  });

  it('remember then recall round-trips through the gateway, with provenance channel mcp', async () => {
    const content = 'The nightly backup job writes to bucket engram-backups in eu-west-1.';
    const written = await callOk<{ id: string }>(client, 'remember', { content });
    const recalled = await callOk<{ memories: { id: string; content: string }[] }>(client, 'recall', {
      query: 'where does the nightly backup go',
    });
    assert.equal(recalled.structured.memories[0]?.id, written.structured.id);
    assert.ok(recalled.text.includes(content));
    const p = await provenanceOf(t, written.structured.id);
    assert.deepEqual([p.channel, p.agent_id, p.api_key_id], ['mcp', 'stdio-agent', key.keyId]);
    // The key's binding holds over stdio too.
    const other = await callError(client, 'remember', {
      content: 'not mine to write',
      agent_id: 'someone-else',
    });
    assert.equal(other.error.reason, 'AGENT_MISMATCH');
  });
});
