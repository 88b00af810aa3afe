import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpanRecord } from './trace-tree.ts';

/** OTLP/JSON as @opentelemetry/exporter-trace-otlp-http sends it (ids in hex, enums as numbers). */
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const KINDS = ['internal', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue;
}

function attributesOf(kvs: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON on POST /v1/traces (port 0), keeps the
 * raw bodies (to search them for secrets) and the spans.
 */
export class OtlpReceiver {
  readonly bodies: string[] = [];
  readonly spans: SpanRecord[] = [];

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        receiver.accept(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    return receiver;
  }

  private accept(body: string): void {
    this.bodies.push(body);
    const request = JSON.parse(body) as OtlpRequest;
    for (const rs of request.resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ? s.parentSpanId : undefined,
            name: s.name,
            kind: KINDS[s.kind] ?? 'internal',
            service,
            attributes: attributesOf(s.attributes),
            error: s.status?.code === 2,
          });
        }
      }
    }
  }

  /** Resolves once `done` holds for the spans received so far. */
  async waitFor(done: (spans: readonly SpanRecord[]) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.spans)) {
      if (Date.now() > deadline)
        throw new Error(`timed out; received: ${this.spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
