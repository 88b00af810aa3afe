import assert from 'node:assert/strict';
import { request } from 'node:http';
import fc from 'fast-check';
import { engramRegistry } from './fixtures/descriptors.ts';
import { startGenericUpstream } from './fixtures/generic-upstream.ts';
import { allAt, startGateway, type RunningGateway } from './fixtures/harness.ts';
import type { Route } from '../src/route-table.ts';

interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Sends the request exactly as given (no URL normalisation). */
function send(
  base: string,
  method: string,
  path: string,
  body: string | undefined,
  contentType?: string,
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every answer is below 500, JSON (or NDJSON) and, for errors, the one error body. */
function assertWellFormed(res: RawResponse, what: string): void {
  assert.ok(res.status < 500, `${what} -> ${res.status} ${res.body}`);
  if (res.contentType.startsWith('application/x-ndjson')) {
    for (const line of res.body.split('\n').filter((l) => l !== '')) JSON.parse(line);
    return;
  }
  assert.match(res.contentType, /^application\/json/, what);
  const parsed = JSON.parse(res.body) as {
    error?: { code: unknown; status: unknown; reason: unknown; message: unknown };
  };
  if (res.status >= 400) {
    assert.equal(parsed.error?.status, res.status, what);
    assert.equal(typeof parsed.error?.code, 'string', what);
    assert.equal(typeof parsed.error?.reason, 'string', what);
    assert.equal(typeof parsed.error?.message, 'string', what);
    assert.ok(!String(parsed.error?.message).includes('    at '), 'no stack traces');
  }
}

const WORDS = [
  'memories',
  'ace',
  'typed',
  'episodic',
  'semantic',
  'session',
  'entity',
  'admin',
  'keys',
  'projects',
  'export',
  'query',
  'hybrid_query',
  'add',
  'add_batch',
  'security',
  'verify',
  'audit',
  'run',
  'complete',
  'feature',
  'features',
  'context',
  'load',
  'vote',
  'm1',
  'healthz',
  'readyz',
  '',
  '.',
  '..',
  '%',
  '%zz',
  '%2F',
  '%00',
  '%C0%AF',
  '*',
  '{id}',
  ':archive',
];

const segment = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent),
  fc.stringMatching(/^[!-.0-~]{0,8}$/).map((s) => s.replace(/[?#]/g, '')),
);
const anyPath = fc
  .tuple(fc.array(segment, { maxLength: 7 }), fc.option(fc.string({ maxLength: 30 }), { nil: undefined }))
  .map(
    ([segs, qs]) => `/${segs.join('/')}${qs === undefined ? '' : `?${encodeURI(qs).replace(/#/g, '%23')}`}`,
  );
const anyBody = fc.option(
  fc.oneof(
    fc.json(),
    fc.string(),
    fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
    fc
      .dictionary(
        fc.constantFrom('content', 'agent_id', 'items', 'metadata', 'top_k', 'vote', 'scope'),
        fc.jsonValue(),
      )
      .map((v) => JSON.stringify(v)),
  ),
  { nil: undefined },
);
const anyContentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  ';;;',
);

/** A request path for the route, each variable replaced by an arbitrary (encoded) value. */
function pathFor(route: Route, values: string[]): string {
  let i = 0;
  return route.pattern.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++] || 'x'));
}

describe('gateway never answers a client with a 5xx (property)', () => {
  let upstream: { address: string; stop(): void };
  let gw: RunningGateway;
  before(async () => {
    const registry = engramRegistry();
    upstream = await startGenericUpstream(registry);
    gw = await startGateway({ registry, upstreams: allAt(upstream.address) });
  });
  after(async () => {
    await gw.stop();
    upstream.stop();
  });

  it('arbitrary methods, paths, queries, content types and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        anyPath,
        anyBody,
        anyContentType,
        async (method, path, body, contentType) => {
          // GET /readyz answers 503 by design while an upstream is not SERVING (the fixture has no
          // health service); that is the readiness report, not an answer to client input.
          fc.pre(!(method === 'GET' && path.split('?')[0] === '/readyz'));
          const res = await send(gw.url, method, path, body, contentType);
          assertWellFormed(res, `${method} ${path} ${contentType ?? ''} ${body ?? ''}`);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hostile bodies give 400, not 5xx', async () => {
    const deep = (n: number, open: string, close: string, inner = '1') =>
      open.repeat(n) + inner + close.repeat(n);
    const hostile = [
      `{"metadata":${deep(20_000, '{"a":', '}')}}`,
      `{"metadata":${deep(50, '{"a":', '}')}}`,
      deep(100_000, '[', ']'),
      `{"items":${deep(5000, '[', ']')}}`,
      '{"__proto__":{"polluted":true},"content":"x"}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"content":"a","content":"b","agent_id":1e999}',
      '{"sequence_number":"99999999999999999999999"}',
      '{"sequence_number":1.5}',
      '{"metadata":"not an object"}',
      '{"metadata":{"a":NaN}}',
      '{"content":"\\ud800"}',
      '\ufeff{"content":"bom"}',
      '{"content":"x"} trailing',
      '{"shared_with":[null,1,{}]}',
      '{"memory_type":{"$ne":null}}',
    ];
    for (const body of hostile) {
      const res = await send(gw.url, 'POST', '/memories/add', body, 'application/json');
      assertWellFormed(res, body.slice(0, 80));
      assert.ok(res.status === 200 || res.status === 400, `${body.slice(0, 80)} -> ${res.status}`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('arbitrary JSON bodies on every real route give 200 or 400', async () => {
    const routes = gw.gateway.routes;
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...routes)
          .chain((route) =>
            fc.tuple(
              fc.constant(route),
              fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 3, maxLength: 3 }),
              fc.dictionary(
                fc.constantFrom(...route.method.input.fields.map((f) => f.name), 'not_a_field'),
                fc.jsonValue({ maxDepth: 4 }),
                { maxKeys: 4 },
              ),
            ),
          ),
        async ([route, values, body]) => {
          const path = pathFor(route, values);
          const res = await send(gw.url, route.httpMethod, path, JSON.stringify(body), 'application/json');
          assertWellFormed(res, `${route.httpMethod} ${path} ${JSON.stringify(body)}`);
          assert.ok(
            res.status === 200 || res.status === 400,
            `${route.httpMethod} ${path} -> ${res.status} ${res.body}`,
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});
