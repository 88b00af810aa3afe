import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OpenApiResponses, type OpenApiDocument } from '@engram/testing';
import { selfUrl } from '../src/mcp-endpoint.ts';
import { startFixtureServer, type FixtureServer } from './fixtures/fixture-server.ts';
import { allAt, deadAddress, startGateway, type RunningGateway } from './fixtures/harness.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('gateway /mcp (Streamable HTTP, stateless) against a gRPC fixture', () => {
  let fixture: FixtureServer;
  let gw: RunningGateway;
  let api: OpenApiResponses;
  const clients: Client[] = [];
  /** Asserts the status and that the body is what the served OpenAPI document declares for it. */
  async function conforms(res: Response, status: number): Promise<unknown> {
    assert.equal(res.status, status);
    const body: unknown = await res.json();
    assert.deepEqual(api.errors('POST', '/mcp', status, body), [], JSON.stringify(body));
    return body;
  }

  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'gateway-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }

  before(async () => {
    fixture = await startFixtureServer();
    gw = await startGateway({
      upstreams: { ...allAt(fixture.address), 'engram.ace.v1.AceService': await deadAddress() },
      maxBodyBytes: 4096,
    });
    api = new OpenApiResponses((await (await fetch(`${gw.url}/openapi.json`)).json()) as OpenApiDocument);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gw?.stop();
    await fixture?.stop();
  });

  it('makes each tool call one REST request of this gateway with the caller key, channel mcp and the request id', async () => {
    const client = await connect({ authorization: 'Bearer egk_fixture_key', 'x-request-id': 'mcp-req-1' });
    const r = (await client.callTool({ name: 'get_memory', arguments: { id: 'm1' } })) as CallToolResult;
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.deepEqual((r.structuredContent as { content: string }).content, 'remember the milk');
    const upstream = fixture.calls.findLast((c) => c.path === 'GetMemory');
    assert.equal(upstream?.metadata.authorization, 'Bearer egk_fixture_key');
    assert.equal(upstream?.metadata['x-engram-channel'], 'mcp');
    assert.equal(upstream?.metadata['x-request-id'], 'mcp-req-1');
    const requests = gw.logs.map(
      (l) => JSON.parse(l) as { msg: string; route?: string; request_id?: string },
    );
    const routes = requests
      .filter((l) => l.msg === 'request' && l.request_id === 'mcp-req-1')
      .map((l) => l.route);
    assert.ok(routes.includes('/mcp') && routes.includes('/memories/{id}'), routes.join());
    assert.ok(!gw.logs.some((l) => l.includes('egk_fixture_key')), 'the key is never logged');
  });

  it('turns an upstream failure into a tool error, and keeps serving', async () => {
    const client = await connect({ authorization: 'Bearer egk_fixture_key' });
    const down = (await client.callTool({
      name: 'vote',
      arguments: { memory_id: 'm1', vote: 'helpful' },
    })) as CallToolResult;
    assert.equal(down.isError, true);
    assert.equal(
      (down.structuredContent as { error: { reason: string } }).error.reason,
      'UPSTREAM_UNAVAILABLE',
    );
    const missing = (await client.callTool({
      name: 'get_memory',
      arguments: { id: 'nope' },
    })) as CallToolResult;
    assert.equal((missing.structuredContent as { error: { status: number } }).error.status, 404);
    assert.equal((await client.listTools()).tools.length, 10);
  });

  it('lets a REST client declare channel mcp, and no other channel', async () => {
    for (const [declared, expected] of [
      ['mcp', 'mcp'],
      ['grpc', 'rest'],
      ['internal', 'rest'],
      ['MCP', 'rest'],
    ] as const) {
      await fetch(`${gw.url}/memories/m1`, { headers: { 'x-engram-channel': declared } });
      assert.equal(
        fixture.calls.findLast((c) => c.path === 'GetMemory')?.metadata['x-engram-channel'],
        expected,
      );
    }
  });

  it('requires a bearer key the API accepts: 401 in the gateway error body, with WWW-Authenticate', async () => {
    const unknownKey = 'Bearer egk_wrong_key';
    for (const authorization of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer  ', unknownKey]) {
      const res = await fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
        body: LIST_TOOLS,
      });
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const body = (await conforms(res, 401)) as { error: { code: string; status: number; reason: string } };
      assert.deepEqual(body.error.code, 'UNAUTHENTICATED');
      assert.deepEqual([body.error.status, body.error.reason], [401, 'UNAUTHENTICATED']);
    }
    const ok = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: 'bearer egk_lowercase_scheme' },
      body: LIST_TOOLS,
    });
    const listed = (await conforms(ok, 200)) as { result: { tools: unknown[] } };
    assert.equal(listed.result.tools.length, 10);
  });

  it('answers GET and DELETE with 405 and Allow: POST (no sessions, no server-sent stream)', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const res = await fetch(`${gw.url}/mcp`, { method, headers: { authorization: 'Bearer egk_x' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.equal(((await res.json()) as { error: { reason: string } }).error.reason, 'METHOD_NOT_ALLOWED');
    }
  });

  it('holds the body to the REST limit (413) and answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const big = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: 'Bearer egk_x' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(5000) },
      }),
    });
    assert.equal(
      ((await conforms(big, 413)) as { error: { reason: string } }).error.reason,
      'PAYLOAD_TOO_LARGE',
    );
    const garbage = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: 'Bearer egk_x' },
      body: '{"jsonrpc": "2.0", "id": 1,',
    });
    assert.equal(((await conforms(garbage, 400)) as { error: { code: number } }).error.code, -32700);
  });
});

describe('selfUrl (where tool calls reach the REST routes)', () => {
  it('uses loopback for a wildcard address and brackets IPv6', () => {
    assert.equal(selfUrl({ address: '0.0.0.0', family: 'IPv4', port: 8080 }), 'http://127.0.0.1:8080');
    assert.equal(selfUrl({ address: '::', family: 'IPv6', port: 8080 }), 'http://[::1]:8080');
    assert.equal(selfUrl({ address: '::1', family: 'IPv6', port: 81 }), 'http://[::1]:81');
    assert.equal(selfUrl({ address: '10.1.2.3', family: 'IPv4', port: 80 }), 'http://10.1.2.3:80');
    assert.throws(() => selfUrl(null));
  });
});
