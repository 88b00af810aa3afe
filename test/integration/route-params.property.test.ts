import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createFileRegistry, fromBinary, type DescField } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { RouteTable, type Route } from '@engram/gateway';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { ENGINES, OpenApiResponses, type OpenApiDocument } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const routes: readonly Route[] = RouteTable.fromRegistry(
  createFileRegistry(fromBinary(FileDescriptorSetSchema, readDescriptorSet())),
).routes;

/** The parameters of a route a client sets in the URL: path variables, and the query of body-less routes. */
interface RouteParams {
  readonly route: Route;
  readonly path: readonly string[];
  readonly query: readonly string[];
}

/** Fields a query parameter can set: scalars and enums, singular or repeated (request-binding.ts). */
const queryable = (f: DescField) =>
  f.fieldKind === 'scalar' || f.fieldKind === 'enum' || f.fieldKind === 'list';

const PARAMS: readonly RouteParams[] = routes.map((route) => {
  const path = route.pathFields.map((p) => p.name);
  const query =
    route.body === ''
      ? route.method.input.fields.filter((f) => queryable(f) && !path.includes(f.name)).map((f) => f.name)
      : [];
  return { route, path, query };
});

/**
 * The smallest body that gets a POST or PATCH past its own required fields, so that the path
 * variable is what the service has to deal with. Bodies are fuzzed elsewhere (gateway-fuzz,
 * hostile-input); here they stay valid.
 */
const BODIES: Record<string, unknown> = {
  'POST /memories/ace/vote/{memory_id}': { vote: 'helpful' },
  'POST /memories/ace/feature/{feature_id}/complete': { verified_by: 'fuzz' },
  'POST /memories/ace/feature/{feature_id}/fail': { reason: 'fuzz' },
  'POST /ace/run/{run_id}/complete': { success: true },
  'POST /memories/{id}/deprecate': { reason: 'fuzz' },
  'PATCH /memories/{id}': { scope: 'agent-private' },
  'PATCH /memories/ace/session/{session_id}': { summary: 'fuzz' },
};

const DASHES = '-'.repeat(36);
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Values that have reached PostgreSQL as cast errors, or could: the sweep sends each to every parameter. */
const HOSTILE: readonly string[] = [
  '',
  'NaN',
  '-1',
  '0',
  '99999999999999999999',
  '1e309',
  DASHES,
  '01890a5d-ac96-774b-bcce-b302099a805', // one digit short
  '01890a5dac96774bbcceb302099a8057', // PostgreSQL reads it, the services do not
  '2024-02-30T00:00:00Z',
  '10000-01-01T00:00:00Z',
  '1970-13-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  'infinity',
  'a\u0000b',
  '\ud800',
  '%00',
  'x'.repeat(3000),
  "'; drop table memories; --",
  b64('not-a-uuid'),
  cursorOf(['2024-02-30T00:00:00.000000Z', DASHES]),
];

/** Real ids of this suite's fixtures (filled in `before`), so that some requests find something. */
const realValues: string[] = [];

const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'null',
      'true',
      '1.5',
      '2147483648',
      '-2147483649',
      '9007199254740993',
      '2024-02-29T00:00:00Z',
      '2024-01-01',
      '2024-01-01T00:00:00+24:00',
      '294277-01-01T00:00:00Z',
      'epoch',
      'now',
      '-infinity',
      '01890A5D-AC96-774B-BCCE-B302099A8057',
      '{01890a5d-ac96-774b-bcce-b302099a8057}',
      'a'.repeat(65),
      'a'.repeat(129),
      'é'.repeat(1000),
      '\udc00x',
      '\u202e\u0007',
      '%',
      '%zz',
      '%2F',
      '%25',
      '%C0%AF',
      '..',
      "' or '1'='1",
      '$1',
      '?',
      '\\',
      '"',
      '1)::text--',
      'pending',
      'MEMORY_CREATED',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...HOSTILE), fc.constantFrom(...HOSTILE), fc.boolean())
      .map(([a, b, json]) => (json ? cursorOf([a, b]) : b64(a))),
  },
  { weight: 2, arbitrary: fc.nat().map((i) => realValues[i % Math.max(1, realValues.length)] ?? 'r') },
);

/**
 * How a value goes into the URL: percent-encoded as a client library would, or as written when it
 * is printable ASCII (so '%zz', '%00' and '..' arrive as raw escapes and dot segments).
 */
const placed = fc.tuple(hostileValue, fc.boolean()).map(([value, raw]) => ({ value, raw }));
type Placed = { value: string; raw: boolean };

/**
 * Percent-encodes every code point as UTF-8, lone surrogates too (as the three bytes WTF-8 gives
 * them, ED A0 80 for U+D800): what a client that does not check its strings sends.
 * encodeURIComponent throws on them instead.
 */
function percentEncode(value: string): string {
  let out = '';
  for (const ch of value) {
    if (/^[A-Za-z0-9\-_.~]$/.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const bytes =
      cp < 0x80
        ? [cp]
        : cp < 0x800
          ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
          : cp < 0x10000
            ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
            : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

function encodeValue(p: Placed): string {
  return p.raw && /^[!-~]*$/.test(p.value) && !/[#?/]/.test(p.value) ? p.value : percentEncode(p.value);
}

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly body: string | undefined;
}

function build(rp: RouteParams, values: ReadonlyMap<string, Placed>): Sent {
  const { route } = rp;
  const url = route.pattern.replace(/\{([^}=]+)(=[^}]*)?\}/g, (_, name: string) => {
    const v = values.get(name);
    return v === undefined ? 'x' : encodeValue(v);
  });
  const query = rp.query
    .filter((name) => values.has(name))
    .map((name) => `${encodeURIComponent(name)}=${encodeValue(values.get(name)!)}`)
    .join('&');
  const key = `${route.httpMethod} ${route.pattern}`;
  const body = route.body === '' ? undefined : JSON.stringify(BODIES[key] ?? {});
  return { method: route.httpMethod, url: query === '' ? url : `${url}?${query}`, body };
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** Sends the request as written (no URL normalisation), with a deadline: a hang is a failure too. */
function send(base: string, key: string, s: Sent): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (s.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(s.body));
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path: s.url, method: s.method, headers, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer within 15 s: ${s.method} ${s.url.slice(0, 200)}`)),
    );
    req.on('error', reject);
    req.end(s.body);
  });
}

/** What the database or the runtime would say: none of it may reach a client. */
const LEAKS =
  /\n\s+at |invalid input syntax for|out of range for type|invalid byte sequence|date\/time field value|syntax error at or near|violates .* constraint|unterminated|SQLSTATE|knex|pglite/i;

let api: OpenApiResponses;

/** The message of grpc-kit's backstop for a value the database refused (data-exception.ts). */
const REFUSED_BY_DATABASE = 'a request value is malformed or out of range';

/**
 * < 500, JSON, every error in the documented shape with nothing from the database in it, and no
 * value refused by the database itself: the services' own checks must refuse it first, naming it.
 */
function check(s: Sent, a: Answer): void {
  const what = `${s.method} ${s.url.slice(0, 300)} -> ${a.status} ${a.text.slice(0, 500)}`;
  assert.ok(a.status > 0 && a.status < 500, what);
  if (a.contentType.startsWith('application/x-ndjson')) return;
  assert.match(a.contentType, /^application\/json/, what);
  const body = JSON.parse(a.text) as { error?: { status?: unknown; message?: unknown } };
  if (a.status >= 400) {
    assert.deepEqual(api.errorsAt('#/components/schemas/Error', body), [], what);
    assert.equal(body.error?.status, a.status, what);
    assert.notEqual(body.error?.message, REFUSED_BY_DATABASE, `reached SQL unchecked: ${what}`);
  }
  assert.doesNotMatch(a.text, LEAKS, what);
}

/**
 * Every REST route's path variables and query parameters, driven with hostile values through the
 * gateway of a real Engram (real gRPC services, real PostgreSQL or PGlite): never a 5xx, never a
 * hang, every error in the documented shape, no stack trace or database message. A failure prints
 * fast-check's seed and path; FC_SEED=<seed> reproduces the run.
 */
for (const engine of ENGINES) {
  describe(`every route's path and query parameters against the real database (${engine})`, function () {
    this.timeout(180_000);
    let t: TestEngram;

    before(async () => {
      t = await startTestEngram(engine, {
        RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
        RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
      });
      api = new OpenApiResponses(
        (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as OpenApiDocument,
      );
      const memory = await t.admin.post<{ id: string }>('/memories/add', {
        content: 'A memory for the parameter fuzzer.',
        agent_id: 'fuzz',
        memory_type: 'strategy',
      });
      assert.equal(memory.status, 200, memory.text);
      const key = await t.admin.post<{ key_id: string }>('/admin/keys', {
        name: 'fuzz',
        trust_level: 'internal',
        any_agent: true,
      });
      assert.equal(key.status, 200, key.text);
      for (const [path, body] of [
        ['/memories/ace/session', { session_id: 's1', agent_id: 'fuzz' }],
        ['/memories/ace/feature', { feature_id: 'f1', description: 'fuzzed' }],
        ['/ace/run', { run_id: 'r1', agent_id: 'fuzz', task_type: 't' }],
      ] as const) {
        const res = await t.admin.post(path, body);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
      }
      realValues.push(memory.body.id, key.body.key_id, 's1', 'f1', 'r1', 'fuzz', 'default');
    });
    after(() => t?.stop());

    it('covers every route of the gateway', () => {
      assert.ok(PARAMS.length >= 40, `only ${PARAMS.length} routes`);
      const named = PARAMS.reduce((n, p) => n + p.path.length + p.query.length, 0);
      assert.ok(named >= 30, `only ${named} parameters`);
    });

    it('answers every hostile value in every parameter with a 4xx or a 2xx (sweep)', async () => {
      const failures: string[] = [];
      const statuses = new Set<number>();
      let sent = 0;
      for (const rp of PARAMS) {
        const baseline = build(rp, new Map());
        try {
          const a = await send(t.baseUrl, t.adminKey, baseline);
          statuses.add(a.status);
          check(baseline, a);
        } catch (err) {
          failures.push((err as Error).message.split('\n')[0]!);
        }
        sent++;
        for (const name of [...rp.path, ...rp.query]) {
          for (const value of HOSTILE) {
            for (const raw of value === '%00' ? [false, true] : [false]) {
              const s = build(rp, new Map([[name, { value, raw }]]));
              const a = await send(t.baseUrl, t.adminKey, s);
              statuses.add(a.status);
              sent++;
              try {
                check(s, a);
              } catch (err) {
                failures.push((err as Error).message.split('\n')[0]!);
              }
            }
          }
        }
      }
      // The requests reached the services and their storage: some found something, some did not.
      for (const status of [200, 400, 404])
        assert.ok(statuses.has(status), `no ${status} in ${[...statuses].join(',')}`);
      assert.equal(
        failures.length,
        0,
        `${failures.length} of ${sent} requests failed:\n${failures.slice(0, 20).join('\n')}`,
      );
    });

    it('answers any combination of values on any route with a 4xx or a 2xx (property)', async () => {
      const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
      const request = fc
        .constantFrom(...PARAMS)
        .chain((rp) =>
          fc
            .record(
              Object.fromEntries([...rp.path, ...rp.query].map((n) => [n, placed])) as Record<
                string,
                fc.Arbitrary<Placed>
              >,
              { requiredKeys: [...rp.path] },
            )
            .map((values) => ({ rp, values: new Map(Object.entries(values)) })),
        );
      await fc.assert(
        fc.asyncProperty(request, async ({ rp, values }) => {
          const s = build(rp, values);
          check(s, await send(t.baseUrl, t.adminKey, s));
        }),
        { numRuns: Number(process.env.FC_RUNS ?? 300), seed },
      );
    });
  });
}
