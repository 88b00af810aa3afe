import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { EmbeddingError, OpenAiEmbedder } from '../src/index.ts';
import {
  base64EmbeddingsHandler,
  base64Of,
  correctEmbeddingsHandler,
  sendJson,
  startEmbeddingsServer,
  vectorFor,
  type EmbeddingsServer,
} from './embeddings-server.ts';

const DIMS = 8;
const texts = (n: number) => Array.from({ length: n }, (_, i) => `text-${i}`);

const correct = correctEmbeddingsHandler(DIMS);

/** Which input a returned vector belongs to (see vectorFor). */
const inputIndexOf = (v: readonly number[]) => Math.round(v[0]! / v[1]!) - 1;

async function expectEmbeddingError(
  p: Promise<unknown>,
  kind: EmbeddingError['kind'],
): Promise<EmbeddingError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof EmbeddingError, String(err));
    assert.equal(err.kind, kind, err.message);
    return err;
  }
  assert.fail('expected an EmbeddingError');
}

describe('OpenAiEmbedder (against a real HTTP server)', () => {
  let server: EmbeddingsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const embedderFor = (
    s: EmbeddingsServer,
    extra: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {},
  ) =>
    new OpenAiEmbedder({
      baseUrl: s.baseUrl,
      apiKey: 'sk-test-key',
      model: 'text-embedding-test',
      dimensions: DIMS,
      ...extra,
    });

  it('posts {model, input, encoding_format: base64} to {baseUrl}/embeddings with a bearer key and returns unit vectors', async () => {
    server = await startEmbeddingsServer(correct);
    const embedder = embedderFor(server);
    assert.deepEqual(embedder.space, { provider: 'openai', model: 'text-embedding-test', dimensions: DIMS });
    const vectors = await embedder.embed(['text-0', 'text-1']);
    assert.equal(server.requests.length, 1);
    const [req] = server.requests;
    assert.equal(req!.method, 'POST');
    assert.equal(req!.url, '/v1/embeddings');
    assert.equal(req!.authorization, 'Bearer sk-test-key');
    assert.deepEqual(req!.body, {
      model: 'text-embedding-test',
      input: ['text-0', 'text-1'],
      encoding_format: 'base64',
    });
    assert.equal(vectors.length, 2);
    for (const v of vectors) {
      assert.equal(v.length, DIMS);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-12, 'normalised');
    }
    assert.deepEqual(vectors.map(inputIndexOf), [0, 1]);
  });

  it('sends no authorization header without a key, and tolerates a trailing slash', async () => {
    server = await startEmbeddingsServer(correct);
    await embedderFor(server, { apiKey: undefined, baseUrl: `${server.baseUrl}/` }).embed(['text-0']);
    assert.equal(server.requests[0]!.authorization, undefined);
    assert.equal(server.requests[0]!.url, '/v1/embeddings');
  });

  it('batches at most 64 inputs per request: 150 inputs -> 3 requests, results in input order', async () => {
    server = await startEmbeddingsServer(correct);
    const vectors = await embedderFor(server).embed(texts(150));
    assert.deepEqual(
      server.requests.map((r) => r.body.input.length),
      [64, 64, 22],
    );
    assert.deepEqual(
      server.requests.flatMap((r) => r.body.input),
      texts(150),
    );
    assert.deepEqual(
      vectors.map(inputIndexOf),
      texts(150).map((_, i) => i),
    );
  });

  it('reads base64 float32 answers, the same vectors as the JSON numbers give', async () => {
    server = await startEmbeddingsServer(base64EmbeddingsHandler(DIMS));
    const fromBase64 = await embedderFor(server).embed(texts(5));
    await server.close();
    server = await startEmbeddingsServer(correct);
    const fromNumbers = await embedderFor(server).embed(texts(5));
    assert.deepEqual(fromBase64.map(inputIndexOf), [0, 1, 2, 3, 4]);
    fromBase64.forEach((v, i) => v.forEach((x, j) => assert.ok(Math.abs(x - fromNumbers[i]![j]!) < 1e-7)));
  });

  it('encodingFormat float leaves encoding_format out of the request', async () => {
    server = await startEmbeddingsServer(correct);
    await embedderFor(server, { encodingFormat: 'float' }).embed(['text-0']);
    assert.deepEqual(server.requests[0]!.body, { model: 'text-embedding-test', input: ['text-0'] });
  });

  // Sixteen characters that Buffer.from skips leave whole float32s (five of the eight), so only the
  // base64 check itself can tell these apart from a vector of another size.
  const whole = base64Of([1, 0, 0, 0, 0, 0, 0, 0]);
  const spliced = (text: string) => whole.slice(0, 8) + text.repeat(16) + whole.slice(24);
  for (const [name, embedding, kind] of [
    ['a string that is not base64', 'not base64!', 'MALFORMED_RESPONSE'],
    ['base64 with characters outside the alphabet', spliced('!'), 'MALFORMED_RESPONSE'],
    ['base64 with spaces in it', spliced(' '), 'MALFORMED_RESPONSE'],
    [
      'base64 with a padding character inside',
      whole.slice(0, 8) + '=' + whole.slice(9),
      'MALFORMED_RESPONSE',
    ],
    [
      'base64 that is not whole float32s',
      Buffer.from([1, 2, 3, 4, 5, 6]).toString('base64'),
      'MALFORMED_RESPONSE',
    ],
    ['base64 of another size', base64Of([1, 2, 3]), 'DIMENSION_MISMATCH'],
    ['base64 holding NaN', base64Of([NaN, 1, 0, 0, 0, 0, 0, 0]), 'MALFORMED_RESPONSE'],
  ] as const) {
    it(`a base64 embedding that is ${name} -> EmbeddingError ${kind}`, async () => {
      server = await startEmbeddingsServer((_req, res) =>
        sendJson(res, 200, { data: [{ index: 0, embedding }] }),
      );
      await expectEmbeddingError(embedderFor(server).embed(['text-0']), kind);
    });
  }

  it('keeps its connection between requests, and resends once when the server has just dropped it', async () => {
    let dropped = 0;
    server = await startEmbeddingsServer((req, res) => {
      // The third request on a connection finds it closed, as when a server times out an idle one.
      if (req.onSocket === 3) {
        dropped++;
        res.socket?.destroy();
        return;
      }
      correct(req, res);
    });
    const embedder = embedderFor(server);
    for (let i = 0; i < 6; i++)
      assert.deepEqual((await embedder.embed([`text-${i}`])).map(inputIndexOf), [i]);
    assert.ok(dropped >= 1, 'a reused connection was dropped');
    // Requests 1 and 2 shared a connection: fewer connections than requests.
    assert.ok(server.requests.some((r) => r.onSocket === 2));
  });

  it("a resend after a dropped connection keeps the first try's deadline: TIMEOUT after timeoutMs, not twice that", async () => {
    let seen = 0;
    server = await startEmbeddingsServer((req, res) => {
      seen++;
      if (seen === 1) return correct(req, res);
      // The reused connection is dropped late, and the resend on a fresh one is never answered.
      if (req.onSocket === 2) setTimeout(() => res.socket?.destroy(), 900);
    });
    const embedder = embedderFor(server, { timeoutMs: 1_000 });
    await embedder.embed(['text-0']);
    const started = Date.now();
    await expectEmbeddingError(embedder.embed(['text-1']), 'TIMEOUT');
    const waited = Date.now() - started;
    assert.equal(seen, 3, 'the dropped request was sent again');
    // A fresh timer for the resend would end at about 900 + 1,000 ms.
    assert.ok(waited < 1_500, `waited ${waited} ms`);
  });

  it('does not follow a redirect (the key stays with the configured address): HTTP_STATUS 307', async () => {
    server = await startEmbeddingsServer((_req, res) => {
      res.writeHead(307, { location: 'http://127.0.0.1:1/v1/embeddings' });
      res.end();
    });
    const err = await expectEmbeddingError(embedderFor(server).embed(['text-0']), 'HTTP_STATUS');
    assert.equal(err.status, 307);
    assert.equal(server.requests.length, 1);
  });

  it('makes no request for no input', async () => {
    server = await startEmbeddingsServer(correct);
    assert.deepEqual(await embedderFor(server).embed([]), []);
    assert.equal(server.requests.length, 0);
  });

  it('puts shuffled answers back in input order by index', async () => {
    server = await startEmbeddingsServer((req, res) => {
      const data = req.body.input.map((input, index) => ({ index, embedding: vectorFor(input, DIMS) }));
      sendJson(res, 200, { data: [...data.slice(3), ...data.slice(0, 3).reverse()] });
    });
    const vectors = await embedderFor(server).embed(texts(10));
    assert.deepEqual(vectors.map(inputIndexOf), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('HTTP 500 -> EmbeddingError with the status, never the input or the key', async () => {
    server = await startEmbeddingsServer((req, res) =>
      sendJson(res, 500, {
        error: { message: `cannot embed ${req.body.input.join(' ')}`, code: 'server_error' },
      }),
    );
    const err = await expectEmbeddingError(
      embedderFor(server).embed(['text-0 my secret note']),
      'HTTP_STATUS',
    );
    assert.equal(err.status, 500);
    assert.match(err.message, /HTTP 500 \(server_error\)/);
    assert.ok(!err.message.includes('secret') && !err.message.includes('sk-test-key'));
  });

  it('HTTP 401 with a free-text body -> EmbeddingError naming only the status', async () => {
    server = await startEmbeddingsServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('Incorrect API key provided: sk-test-key');
    });
    const err = await expectEmbeddingError(embedderFor(server).embed(['text-0']), 'HTTP_STATUS');
    assert.equal(err.status, 401);
    assert.ok(!err.message.includes('sk-test-key'));
  });

  it('malformed JSON -> EmbeddingError', async () => {
    server = await startEmbeddingsServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [{"index": 0, "embedding": [0.1, ');
    });
    await expectEmbeddingError(embedderFor(server).embed(['text-0']), 'MALFORMED_RESPONSE');
  });

  for (const [name, body] of [
    ['no data list', { object: 'list' }],
    ['too few embeddings', { data: [] }],
    ['a missing index', { data: [{ embedding: vectorFor('text-0', DIMS) }] }],
    ['an out-of-range index', { data: [{ index: 1, embedding: vectorFor('text-0', DIMS) }] }],
    ['a non-numeric component', { data: [{ index: 0, embedding: ['a', 1, 0, 0, 0, 0, 0, 0] }] }],
    ['an all-zero vector', { data: [{ index: 0, embedding: new Array(DIMS).fill(0) }] }],
    ['an embedding that is neither a list nor a string', { data: [{ index: 0, embedding: { x: 1 } }] }],
  ] as const) {
    it(`a response with ${name} -> EmbeddingError`, async () => {
      server = await startEmbeddingsServer((_req, res) => sendJson(res, 200, body));
      await expectEmbeddingError(embedderFor(server).embed(['text-0']), 'MALFORMED_RESPONSE');
    });
  }

  it('a repeated index -> EmbeddingError', async () => {
    server = await startEmbeddingsServer((_req, res) =>
      sendJson(res, 200, { data: [0, 0].map((index) => ({ index, embedding: vectorFor('text-0', DIMS) })) }),
    );
    await expectEmbeddingError(embedderFor(server).embed(['text-0', 'text-1']), 'MALFORMED_RESPONSE');
  });

  it('vectors of the wrong dimensions -> EmbeddingError naming both sizes', async () => {
    server = await startEmbeddingsServer((req, res) =>
      sendJson(res, 200, {
        data: req.body.input.map((input, index) => ({ index, embedding: vectorFor(input, 16) })),
      }),
    );
    const err = await expectEmbeddingError(embedderFor(server).embed(['text-0']), 'DIMENSION_MISMATCH');
    assert.match(err.message, /16-dimensional.*8 are configured/);
  });

  it('a provider that does not answer in time -> EmbeddingError TIMEOUT', async () => {
    server = await startEmbeddingsServer(() => {
      // never answers; close() drops the connection
    });
    const err = await expectEmbeddingError(
      embedderFor(server, { timeoutMs: 150 }).embed(['text-0']),
      'TIMEOUT',
    );
    assert.match(err.message, /150 ms/);
  });

  it('a body that stalls half way -> EmbeddingError TIMEOUT', async () => {
    server = await startEmbeddingsServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
    });
    await expectEmbeddingError(embedderFor(server, { timeoutMs: 150 }).embed(['text-0']), 'TIMEOUT');
  });

  it('an unreachable provider -> EmbeddingError NETWORK', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const embedder = new OpenAiEmbedder({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      dimensions: DIMS,
    });
    await expectEmbeddingError(embedder.embed(['text-0']), 'NETWORK');
  });

  it('refuses unusable options', () => {
    const base = { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', dimensions: DIMS };
    for (const bad of [
      { ...base, baseUrl: '' },
      { ...base, baseUrl: 'not a url' },
      { ...base, baseUrl: 'ftp://host/v1' },
      { ...base, dimensions: 0 },
      { ...base, batchSize: 65 },
      { ...base, timeoutMs: 0 },
    ]) {
      assert.throws(
        () => new OpenAiEmbedder(bad),
        (err: unknown) => err instanceof EmbeddingError && err.kind === 'CONFIGURATION',
      );
    }
  });
});
