import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '@engram/security-rules';

/**
 * An OpenAI-compatible embeddings server for benches and tests: POST /v1/embeddings with
 * `{model, input: string | string[] (or token arrays), dimensions?, encoding_format?}` answers
 * `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}` exactly as the
 * hosted API does (base64 little-endian float32 when encoding_format is "base64", as the official
 * SDKs ask by default). Errors have OpenAI's shape `{error: {message, type, param, code}}`.
 *
 * The vectors are deterministic and shaped like sentence embeddings rather than like lexical hashes:
 * - low intrinsic dimension: every text is a point of a 64-dimensional latent space with a decaying
 *   spectrum, lifted to the output size by one fixed random projection;
 * - clustered by topic: each word belongs to one of 48 topics (by a hash of the word) and its latent
 *   vector is its topic's centroid plus a smaller word-specific part, so texts sharing words or
 *   topics land near each other;
 * - anisotropic: every vector shares one common direction (unrelated texts have cosine about 0.1,
 *   as with hosted models), plus a small text-specific full-rank part so no two texts coincide.
 * Dimensions come from `dimensions`, else from the model name (text-embedding-3-small and ada-002:
 * 1536, text-embedding-3-large: 3072, a name ending in -<n>: n), else the server's default.
 */

export const STANDIN_LATENT_DIMENSIONS = 64;
const TOPICS = 48;
const TOPIC_WEIGHT = 0.7;
const WORD_WEIGHT = 1;
const COMMON_WEIGHT = 0.3;
const NOISE_WEIGHT = 0.08;
const MAX_INPUTS = 2048;
const MAX_DIMENSIONS = 4096;
const WORD_CACHE = 200_000;

const STOP = new Set(
  (
    'a an and are as at be but by for from has have in is it its of on or that the this to was were ' +
    'will with when than then there these those we you he she they i our your their not no so if do does'
  ).split(' '),
);

/** FNV-1a, 32 bits. */
function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Standard normal draws (Box-Muller). */
function gaussian(r: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const u = Math.max(r(), 1e-12);
    const v = r();
    const m = Math.sqrt(-2 * Math.log(u));
    spare = m * Math.sin(2 * Math.PI * v);
    return m * Math.cos(2 * Math.PI * v);
  };
}

/** Latent axis j has standard deviation (j+1)^-0.35: a few directions carry most of the variance. */
const AXIS_SCALE = Float64Array.from({ length: STANDIN_LATENT_DIMENSIONS }, (_, j) => (j + 1) ** -0.35);

function latentDraw(seed: number): Float64Array {
  const g = gaussian(mulberry32(seed));
  const v = new Float64Array(STANDIN_LATENT_DIMENSIONS);
  for (let j = 0; j < v.length; j++) v[j] = g() * AXIS_SCALE[j]!;
  return v;
}

/** The words of a text: lower-cased letter/digit runs without function words. */
export function standInWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const w = m[0];
    if (!STOP.has(w)) out.push(w);
  }
  return out;
}

/** Which of the 48 topics a word belongs to in the space of `seed`. */
export function standInTopic(word: string, seed = 1): number {
  return fnv1a(word.toLowerCase(), seed ^ 0x811c9dc5) % TOPICS;
}

/** The geometry of one seed: topic centroids, word vectors (cached), the projection and the common direction. */
class Space {
  private readonly topics: Float64Array[];
  private readonly words = new Map<string, Float64Array>();
  private readonly lifts = new Map<number, { projection: Float32Array; common: Float32Array }>();

  constructor(private readonly seed: number) {
    this.topics = Array.from({ length: TOPICS }, (_, t) => latentDraw(seed * 1009 + t + 1));
  }

  word(w: string): Float64Array {
    let v = this.words.get(w);
    if (v) return v;
    const h = fnv1a(w, this.seed ^ 0x811c9dc5);
    const topic = this.topics[h % TOPICS]!;
    const own = latentDraw(h ^ 0x5bd1e995);
    v = new Float64Array(STANDIN_LATENT_DIMENSIONS);
    for (let j = 0; j < v.length; j++) v[j] = TOPIC_WEIGHT * topic[j]! + WORD_WEIGHT * own[j]!;
    if (this.words.size >= WORD_CACHE) this.words.clear();
    this.words.set(w, v);
    return v;
  }

  lift(dimensions: number): { projection: Float32Array; common: Float32Array } {
    let l = this.lifts.get(dimensions);
    if (l) return l;
    const g = gaussian(mulberry32(this.seed * 31 + dimensions));
    const L = STANDIN_LATENT_DIMENSIONS;
    const projection = new Float32Array(dimensions * L);
    const scale = 1 / Math.sqrt(dimensions);
    for (let i = 0; i < projection.length; i++) projection[i] = g() * scale;
    const common = new Float32Array(dimensions);
    let n = 0;
    for (let i = 0; i < dimensions; i++) {
      common[i] = g();
      n += common[i]! * common[i]!;
    }
    for (let i = 0; i < dimensions; i++) common[i]! /= Math.sqrt(n);
    l = { projection, common };
    this.lifts.set(dimensions, l);
    return l;
  }
}

const spaces = new Map<number, Space>();
function spaceOf(seed: number): Space {
  let s = spaces.get(seed);
  if (!s) spaces.set(seed, (s = new Space(seed)));
  return s;
}

/** The text's point in the latent space, unit length (before the lift). */
export function standInLatent(text: string, seed = 1): Float64Array {
  const space = spaceOf(seed);
  const z = new Float64Array(STANDIN_LATENT_DIMENSIONS);
  const counts = new Map<string, number>();
  for (const w of standInWords(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  if (counts.size === 0) counts.set(text.trim() === '' ? '<empty>' : text, 1);
  for (const [w, c] of counts) {
    // Numbers and codes carry less meaning than words; repeats add with diminishing weight.
    const weight = (/\d/.test(w) ? 0.5 : 1) * (1 + Math.log(c));
    const v = space.word(w);
    for (let j = 0; j < z.length; j++) z[j]! += weight * v[j]!;
  }
  let n = 0;
  for (let j = 0; j < z.length; j++) n += z[j]! * z[j]!;
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < z.length; j++) z[j]! /= n;
  return z;
}

/** The stand-in's vector for a text: deterministic, unit length, `dimensions` long. */
export function standInVector(text: string, dimensions: number, seed = 1): Float32Array {
  const z = standInLatent(text, seed);
  const { projection, common } = spaceOf(seed).lift(dimensions);
  const noise = gaussian(mulberry32(fnv1a(text, seed)));
  const noiseScale = NOISE_WEIGHT / Math.sqrt(dimensions);
  const L = STANDIN_LATENT_DIMENSIONS;
  const out = new Float32Array(dimensions);
  let n = 0;
  for (let i = 0; i < dimensions; i++) {
    let x = COMMON_WEIGHT * common[i]! + noiseScale * noise();
    const row = i * L;
    for (let j = 0; j < L; j++) x += projection[row + j]! * z[j]!;
    out[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < dimensions; i++) out[i]! /= n;
  return out;
}

/** The vector size a request gets: `dimensions`, else the model's, else the server default. */
export function standInDimensions(model: string, requested: number | undefined, fallback: number): number {
  if (requested !== undefined) return requested;
  if (model === 'text-embedding-3-large') return 3072;
  if (model === 'text-embedding-3-small' || model === 'text-embedding-ada-002') return 1536;
  const m = /-(\d{1,4})$/.exec(model);
  return m ? Number(m[1]) : fallback;
}

interface ApiError {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

const invalid = (message: string, param: string | null = null): ApiError => ({
  status: 400,
  message,
  param,
  code: null,
});

function parseInput(input: unknown): string[] | ApiError {
  const one = (x: unknown): string | undefined => {
    if (typeof x === 'string') return x;
    // Token ids: each id is a word of its own.
    if (Array.isArray(x) && x.length > 0 && x.every((t) => Number.isInteger(t) && (t as number) >= 0))
      return (x as number[]).map((t) => `tok${t}`).join(' ');
    return undefined;
  };
  if (typeof input === 'string') return input === '' ? invalid("'input' cannot be empty", 'input') : [input];
  if (!Array.isArray(input) || input.length === 0)
    return invalid("'input' must be a string, an array of strings or an array of token arrays", 'input');
  // An array of token ids is one input.
  if (input.every((t) => typeof t === 'number')) {
    const s = one(input);
    return s === undefined ? invalid("'input' holds an invalid token", 'input') : [s];
  }
  if (input.length > MAX_INPUTS) return invalid(`'input' holds more than ${MAX_INPUTS} items`, 'input');
  const out: string[] = [];
  for (const x of input) {
    const s = one(x);
    if (s === undefined || s === '')
      return invalid("'input' items must be non-empty strings or token arrays", 'input');
    out.push(s);
  }
  return out;
}

export interface EmbeddingStandInOptions {
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Vector size when neither the request nor the model name says. Default 1536. */
  readonly defaultDimensions?: number;
  /** Another seed gives another (equally shaped) space. Default 1. */
  readonly seed?: number;
}

/** The stand-in server. `baseUrl` ends in /v1 (the value of EMBEDDING_BASE_URL). */
export class EmbeddingStandIn {
  /** Inputs embedded and requests answered since start. */
  inputs = 0;
  requests = 0;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    private readonly defaultDimensions: number,
    private readonly seed: number,
  ) {}

  static async start(opts: EmbeddingStandInOptions = {}): Promise<EmbeddingStandIn> {
    const host = opts.host ?? '127.0.0.1';
    const holder: { self?: EmbeddingStandIn } = {};
    const server = createServer((req, res) => {
      holder.self!.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          send(res, 500, { error: { message: String(err), type: 'server_error', param: null, code: null } });
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const self = new EmbeddingStandIn(
      server,
      `http://${host}:${port}/v1`,
      opts.defaultDimensions ?? 1536,
      opts.seed ?? 1,
    );
    holder.self = self;
    return self;
  }

  /** What the server answers for `text` at `dimensions` (the same numbers, without HTTP). */
  vector(text: string, dimensions: number): Float32Array {
    return standInVector(text, dimensions, this.seed);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/v1/embeddings' && path !== '/embeddings') {
      send(res, 404, {
        error: {
          message: `Unknown request URL: ${req.method} ${path}`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, {
        error: { message: 'Use POST', type: 'invalid_request_error', param: null, code: null },
      });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    this.requests++;
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, invalid('We could not parse the JSON body of your request.'));
    }
    if (typeof body !== 'object' || body === null)
      return fail(res, invalid('The body must be a JSON object.'));
    const { model, input, dimensions, encoding_format: format } = body as Record<string, unknown>;
    if (typeof model !== 'string' || model === '') return fail(res, invalid("'model' is required", 'model'));
    if (
      dimensions !== undefined &&
      (!Number.isInteger(dimensions) || (dimensions as number) < 1 || (dimensions as number) > MAX_DIMENSIONS)
    )
      return fail(res, invalid(`'dimensions' must be an integer from 1 to ${MAX_DIMENSIONS}`, 'dimensions'));
    if (format !== undefined && format !== 'float' && format !== 'base64')
      return fail(res, invalid("'encoding_format' must be 'float' or 'base64'", 'encoding_format'));
    const texts = parseInput(input);
    if (!Array.isArray(texts)) return fail(res, texts);
    const dims = standInDimensions(model, dimensions as number | undefined, this.defaultDimensions);
    let tokens = 0;
    const data = texts.map((text, index) => {
      tokens += Math.max(1, Math.ceil(text.length / 4));
      const v = this.vector(text, dims);
      const embedding =
        format === 'base64'
          ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
          : Array.from(v);
      return { object: 'embedding', index, embedding };
    });
    this.inputs += texts.length;
    send(res, 200, { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

function fail(res: ServerResponse, e: ApiError): void {
  send(res, e.status, {
    error: { message: e.message, type: 'invalid_request_error', param: e.param, code: e.code },
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
