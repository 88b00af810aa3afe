import {
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type FileRegistry,
  type JsonValue,
} from '@bufbuild/protobuf';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { httpStatusFor, type Route } from '@engram/gateway';
import { decodeStatusDetails } from '@engram/grpc-kit';
import type { Json } from './requests.ts';

/** What one call answered, as a user sees it: the HTTP status (gRPC mapped by the gateway's table) and the text. */
export interface Answer {
  readonly status: number;
  readonly reason: string | undefined;
  readonly text: string;
}

/** The HTTP status of a refusal reason, for answers that report refusals inside a 200. */
const REASON_STATUS: Readonly<Record<string, number>> = {
  AGENT_MISMATCH: 403,
  SCOPE_FORBIDDEN: 403,
  TRUST_FORBIDDEN: 403,
  ADMIN_REQUIRED: 403,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  SECURITY_REJECTED: 422,
};

/**
 * A batch answers 200 with one result per item, a delta 200 with applied false and a reason per
 * operation: the matrix judges them by their single item's status, or the refused operation's reason.
 */
function effective(status: number, body: unknown): number {
  if (status !== 200 || typeof body !== 'object' || body === null) return status;
  const { results, applied } = body as {
    results?: { error?: ItemError; status?: string; reason?: string }[];
    applied?: boolean;
  };
  if (!Array.isArray(results)) return status;
  const itemStatus = itemHttpStatus(results[0]?.error);
  if (itemStatus !== undefined) return itemStatus;
  if (applied === false) {
    const reason = results.find((r) => r.status === 'rejected')?.reason ?? '';
    return REASON_STATUS[reason] ?? 409;
  }
  return status;
}

/**
 * A refused item's error: through the gateway, the error body's object (its `status` is HTTP);
 * over gRPC, a google.rpc.Status (its `code` is mapped by the gateway's table with its ErrorInfo).
 */
interface ItemError {
  readonly status?: number;
  readonly code?: number | string;
  readonly details?: { '@type'?: string; reason?: string }[];
}

function itemHttpStatus(error: ItemError | undefined): number | undefined {
  if (error === undefined) return undefined;
  if (typeof error.status === 'number') return error.status;
  if (typeof error.code !== 'number') return undefined;
  const info = error.details?.find((d) => d['@type']?.endsWith('/google.rpc.ErrorInfo'));
  return httpStatusFor(error.code, info?.reason);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Calls a route through the gateway, as curl would. */
export async function callRest(
  baseUrl: string,
  route: Route,
  fields: Json,
  key: string | undefined,
): Promise<Answer> {
  const rest: Json = { ...fields };
  let path = route.pattern;
  for (const pf of route.pathFields) {
    path = path.replace(new RegExp(`\\{${pf.name}(=[^}]*)?\\}`), encodeURIComponent(String(rest[pf.name])));
    delete rest[pf.name];
  }
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (route.body === '*') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(rest);
  } else {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) {
      for (const item of Array.isArray(v) ? v : [v]) {
        if (['string', 'number', 'boolean'].includes(typeof item)) q.append(k, String(item));
      }
    }
    if ([...q.keys()].length > 0) path += `?${q.toString()}`;
  }
  const res = await fetch(baseUrl + path, { method: route.httpMethod, headers, body });
  const text = await res.text();
  const parsed = parse(text) as { error?: { reason?: string } } | undefined;
  return { status: effective(res.status, parsed), reason: parsed?.error?.reason, text };
}

/** Calls the same RPC directly over gRPC with the same key (a backend caller without the gateway). */
export function callGrpc(
  client: Client,
  registry: FileRegistry,
  route: Route,
  fields: Json,
  key: string | undefined,
): Promise<Answer> {
  const input = fromJson(route.method.input, fields as JsonValue, { registry });
  const bytes = Buffer.from(toBinary(route.method.input, input));
  const md = new Metadata();
  if (key !== undefined) md.set('authorization', `Bearer ${key}`);
  const render = (b: Buffer) =>
    toJson(route.method.output, fromBinary(route.method.output, b), {
      registry,
      useProtoFieldName: true,
      alwaysEmitImplicit: true,
    });
  const failed = (err: ServiceError): Answer => {
    const reason = decodeStatusDetails(err).reason;
    return { status: httpStatusFor(err.code, reason), reason, text: err.details };
  };
  const deadline = new Date(Date.now() + 30_000);
  return new Promise((resolve) => {
    if (route.serverStreaming) {
      const items: JsonValue[] = [];
      const stream = client.makeServerStreamRequest(
        route.grpcPath,
        (b: Buffer) => b,
        (b: Buffer) => b,
        bytes,
        md,
        { deadline },
      );
      stream.on('data', (b: Buffer) => items.push(render(b)));
      stream.on('error', (err: ServiceError) => resolve(failed(err)));
      stream.on('end', () => resolve({ status: 200, reason: undefined, text: JSON.stringify(items) }));
      return;
    }
    client.makeUnaryRequest(
      route.grpcPath,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      { deadline },
      (err, res) => {
        if (err) return resolve(failed(err));
        const json = render(res ?? Buffer.alloc(0));
        resolve({ status: effective(200, json), reason: undefined, text: JSON.stringify(json) });
      },
    );
  });
}

export function genericClient(address: string): Client {
  return new Client(address, credentials.createInsecure());
}
