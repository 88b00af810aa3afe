import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TOPIC_DIMENSIONS = 256;

/** Crude stemming so that deploys / deploying / deploy share a feature, as a semantic model would. */
function stem(word: string): string {
  for (const suffix of ['ing', 'ed', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'to',
  'is',
  'in',
  'on',
  'by',
  'with',
  'and',
  'for',
  'was',
  'when',
]);

/**
 * A stand-in for a semantic embedding model: it sees plain words (stemmed) and nothing else, so
 * identifiers such as E4711 or src/net/pool.ts carry no signal, the weakness of dense embeddings that
 * the full-text channel of hybrid queries covers.
 */
export function topicVector(text: string): number[] {
  const v = new Array<number>(TOPIC_DIMENSIONS).fill(0);
  for (const raw of text.toLowerCase().split(/\s+/)) {
    const word = raw.replace(/[.,;:!?]+$/, '');
    if (!/^[a-z]+$/.test(word) || STOP.has(word)) continue;
    const h = createHash('sha256').update(stem(word)).digest();
    v[h.readUInt32BE(0) % (TOPIC_DIMENSIONS - 1)]! += 1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) v[TOPIC_DIMENSIONS - 1] = 1;
  return norm === 0 ? v : v.map((x) => x / norm);
}

/** A real HTTP server on port 0 speaking the OpenAI embeddings protocol with topicVector. */
export async function startTopicEmbeddings(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: body.input.map((input, index) => ({
            object: 'embedding',
            index,
            embedding: topicVector(input),
          })),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
