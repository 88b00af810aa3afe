import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { EmbeddingError } from './embedding-error.ts';

/** A body larger than this is not an embeddings answer (64 inputs x 4,096 numbers is about 6 MB of JSON). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface PostedAnswer {
  readonly status: number;
  readonly text: string;
}

/** The two errors a kept-alive connection the server has just closed gives the next request on it. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

/**
 * POSTs JSON over node:http(s) through one kept-alive agent per target, which costs about half the
 * client CPU of fetch per request (docs/benchmarks.md). The whole exchange, the body included, must
 * end within timeoutMs (TIMEOUT); no answer at all is NETWORK. A request that fails with a reset on a
 * reused connection is sent once more on a fresh one: the server closed an idle connection as it was
 * reused, and an embeddings request has no side effect to repeat. A redirect is not followed (its
 * status is the answer), so the API key never goes to another address.
 */
export class JsonPoster {
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly timeoutMs: number,
  ) {
    const https = url.protocol === 'https:';
    this.request = https ? httpsRequest : httpRequest;
    // Idle sockets are unreferenced by the agent and dropped after 4 s (servers commonly close at 5).
    this.agent = https
      ? new HttpsAgent({ keepAlive: true, timeout: 4_000, scheduling: 'lifo' })
      : new HttpAgent({ keepAlive: true, timeout: 4_000, scheduling: 'lifo' });
  }

  async post(body: string): Promise<PostedAnswer> {
    // The resend shares the first try's deadline: the caller waits timeoutMs at most, not twice that.
    const deadline = Date.now() + this.timeoutMs;
    try {
      return await this.once(body, deadline);
    } catch (err) {
      if (err instanceof StaleSocketError) return this.once(body, deadline, true);
      throw err;
    }
  }

  private once(body: string, deadline: number, retried = false): Promise<PostedAnswer> {
    return new Promise<PostedAnswer>((resolve, reject) => {
      let done = false;
      const finish = (err: Error | undefined, answer?: PostedAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) {
          req.destroy();
          reject(err);
        } else resolve(answer!);
      };
      const timer = setTimeout(
        () => finish(new EmbeddingError(`embedding request timed out after ${this.timeoutMs} ms`, 'TIMEOUT')),
        Math.max(0, deadline - Date.now()),
      );
      const payload = Buffer.from(body, 'utf8');
      const req: ClientRequest = this.request(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...this.headers, 'content-length': String(payload.length) },
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && STALE_SOCKET.has(err.code ?? '')) finish(new StaleSocketError());
        else finish(new EmbeddingError('embedding provider could not be reached', 'NETWORK', { cause: err }));
      });
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES)
            finish(
              new EmbeddingError(
                'embedding provider answered with a body that is too large',
                'MALFORMED_RESPONSE',
              ),
            );
          else chunks.push(c);
        });
        res.on('end', () =>
          finish(undefined, { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (err) =>
          finish(new EmbeddingError('embedding provider could not be reached', 'NETWORK', { cause: err })),
        );
        res.on('aborted', () =>
          finish(new EmbeddingError('embedding provider closed the answer half way', 'NETWORK')),
        );
      });
      req.end(payload);
    });
  }
}

class StaleSocketError extends Error {}
