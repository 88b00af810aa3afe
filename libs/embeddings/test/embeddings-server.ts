import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly body: { model: string; input: string[]; encoding_format?: string };
  /** Which request this is on its connection (1 = the first). */
  readonly onSocket: number;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void;

export interface EmbeddingsServer {
  /** Base URL, like http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * The vector a well-behaved fake gives `text-<i>`: [i + 1, 1, 0, ...]. After normalisation the
 * ratio of the first two components gives i + 1 back, so a test can tell which input a vector is for.
 */
export function vectorFor(input: string, dimensions: number): number[] {
  const i = Number(input.slice('text-'.length));
  const v = new Array<number>(dimensions).fill(0);
  v[0] = i + 1;
  v[1] = 1;
  return v;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A handler that answers like a correct provider: one vector per input (vectorFor), in order. */
export function correctEmbeddingsHandler(dimensions: number): Handler {
  return (req, res) =>
    sendJson(res, 200, {
      object: 'list',
      model: req.body.model,
      data: req.body.input.map((input, index) => ({
        object: 'embedding',
        index,
        embedding: vectorFor(input, dimensions),
      })),
    });
}

/** The base64 form of a vector the hosted API answers with encoding_format "base64". */
export function base64Of(v: readonly number[]): string {
  return Buffer.from(Float32Array.from(v).buffer).toString('base64');
}

/** Like correctEmbeddingsHandler, each vector as base64 float32 (what encoding_format "base64" asks). */
export function base64EmbeddingsHandler(dimensions: number): Handler {
  return (req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: req.body.input.map((input, index) => ({
        index,
        embedding: base64Of(vectorFor(input, dimensions)),
      })),
    });
}

/** A real HTTP server on port 0 speaking the OpenAI embeddings protocol through `handler`. */
export async function startEmbeddingsServer(handler: Handler): Promise<EmbeddingsServer> {
  const requests: RecordedRequest[] = [];
  const perSocket = new WeakMap<object, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const onSocket = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, onSocket);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'],
        onSocket,
      };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
