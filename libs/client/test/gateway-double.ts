import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody, GatewayError, writeError } from '@engram/gateway';

/** One request the double received. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Date.now() when the request was complete. */
  readonly at: number;
}

export type Answer = (res: ServerResponse, req: Received) => void | Promise<void>;

/**
 * A stand-in for the gateway on a real HTTP port that answers from a script, one answer per
 * request, with the gateway's own error writer (so error bodies and headers are the real ones).
 * Requests beyond the script get a 500 the tests would notice.
 */
export class GatewayDouble {
  readonly received: Received[] = [];
  private script: Answer[] = [];
  private repeat: Answer | undefined;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<GatewayDouble> {
    const server = createServer();
    const double = new GatewayDouble(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: Received = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        double.received.push(received);
        res.setHeader('x-request-id', `req-${double.received.length}`);
        const answer = double.script.shift() ?? double.repeat ?? unexpected;
        void Promise.resolve(answer(res, received)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return double;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The answers to the next requests, in order. */
  answer(...answers: Answer[]): this {
    this.script.push(...answers);
    return this;
  }

  /** The answer to every request once the script is used up. */
  always(answer: Answer): this {
    this.repeat = answer;
    return this;
  }

  reset(): void {
    this.received.length = 0;
    this.script = [];
    this.repeat = undefined;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const unexpected: Answer = (res) => {
  res.statusCode = 500;
  res.end(
    '{"error":{"code":"INTERNAL","status":500,"reason":"UNEXPECTED_REQUEST","message":"not in the script","details":[]}}',
  );
};

export function json(body: unknown, status = 200): Answer {
  return (res) => {
    const payload = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(payload);
  };
}

/** The gateway's error response for err, with extra headers (Retry-After ...). */
export function gatewayError(err: GatewayError, headers: Record<string, string> = {}): Answer {
  return (res) => {
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    writeError(res, err);
  };
}

export function unavailable(retryAfter?: string): Answer {
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
  return gatewayError(
    new GatewayError(503, 'UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE', 'a dependency is down', { headers }),
  );
}

export function rateLimited(retryAfter: string): Answer {
  return gatewayError(
    new GatewayError(429, 'RESOURCE_EXHAUSTED', 'RATE_LIMITED', 'rate limit exceeded', {
      headers: { 'retry-after': retryAfter },
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMITED',
          domain: 'engram',
          metadata: {},
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: `${retryAfter}s` },
      ],
    }),
  );
}

/** Drops the connection without an answer. */
export const dropConnection: Answer = (res) => {
  res.socket?.destroy();
};

/** Never answers (until the client gives up or the double closes). */
export const hang: Answer = () => undefined;

/** The NDJSON error line the gateway writes when a stream fails after rows were sent. */
export function errorLine(err: GatewayError): string {
  return `${JSON.stringify(errorBody(err))}\n`;
}
