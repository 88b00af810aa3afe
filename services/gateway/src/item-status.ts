import { toBinary, type DescMessage, type Registry } from '@bufbuild/protobuf';
import { Metadata } from '@grpc/grpc-js';
import { errorBody, errorFromGrpc } from './error-writer.ts';
import type { JsonValue } from './gateway-error.ts';
import { STATUS_DETAILS_KEY } from './status-details.ts';

const STATUS_TYPE = 'google.rpc.Status';

type Fields = Record<string, unknown>;

/**
 * Renders every google.rpc.Status inside a response (the error of a refused batch item) as the
 * `error` object of the gateway's error body: the same code table, reason, message and details as a
 * request that failed with that status, so a client reads one error shape everywhere.
 */
export class StatusFieldRenderer {
  private readonly holds = new Map<string, boolean>();

  constructor(private readonly registry: Registry) {}

  /** Rewrites `json` (the proto3 JSON of `message`, proto field names) in place. */
  render(desc: DescMessage, message: Fields, json: JsonValue): void {
    if (!this.holdsStatus(desc) || !isObject(json)) return;
    for (const f of desc.fields) {
      if (f.fieldKind === 'message') {
        const value = message[f.localName] as Fields | undefined;
        if (value !== undefined && json[f.name] !== undefined) {
          json[f.name] = this.visit(f.message, value, json[f.name] ?? null);
        }
      } else if (f.fieldKind === 'list' && f.listKind === 'message') {
        const values = message[f.localName] as Fields[];
        const items = json[f.name];
        if (Array.isArray(items)) {
          values.forEach((v, i) => {
            items[i] = this.visit(f.message, v, items[i] ?? null);
          });
        }
      }
    }
  }

  private visit(desc: DescMessage, value: Fields, json: JsonValue): JsonValue {
    if (desc.typeName !== STATUS_TYPE) {
      this.render(desc, value, json);
      return json;
    }
    const bin = toBinary(desc, value as never);
    const metadata = new Metadata();
    metadata.set(STATUS_DETAILS_KEY, Buffer.from(bin));
    const code = typeof value.code === 'number' ? value.code : 2;
    const message = typeof value.message === 'string' ? value.message : '';
    return errorBody(errorFromGrpc({ code, details: message, metadata }, this.registry)).error;
  }

  /** Whether a message (or one it holds, at any depth) has a google.rpc.Status field. */
  private holdsStatus(desc: DescMessage): boolean {
    let known = this.holds.get(desc.typeName);
    if (known === undefined) {
      known = reachesStatus(desc, new Set());
      this.holds.set(desc.typeName, known);
    }
    return known;
  }
}

function reachesStatus(desc: DescMessage, seen: Set<string>): boolean {
  if (seen.has(desc.typeName)) return false;
  seen.add(desc.typeName);
  return desc.fields.some((f) => {
    const m =
      f.fieldKind === 'message' || (f.fieldKind === 'list' && f.listKind === 'message')
        ? f.message
        : undefined;
    return m !== undefined && (m.typeName === STATUS_TYPE || reachesStatus(m, seen));
  });
}

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
