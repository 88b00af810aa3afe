import type { DescMessage } from '@bufbuild/protobuf';
import { findField } from './field-path.ts';
import type { JsonValue } from './gateway-error.ts';

/**
 * Turns a fromJson failure into a field path the client can act on ("items[1].content: expected
 * string, got 5"). Runs only on the error path: it re-walks the JSON request to find where the
 * message type and field named by the protobuf-es error occur.
 */
export interface JsonProblem {
  /** Path in the request as the client wrote it, e.g. items[1].content; "" when unknown. */
  readonly field: string;
  readonly description: string;
}

const MAX_DESCRIPTION = 300;
const MAX_DEPTH = 64;

/** Messages whose JSON form is not an object of their fields; the walk does not descend into them. */
const OPAQUE_JSON = new Set([
  'google.protobuf.Any',
  'google.protobuf.Struct',
  'google.protobuf.Value',
  'google.protobuf.ListValue',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'google.protobuf.FieldMask',
]);

export function describeJsonError(schema: DescMessage, json: JsonValue, err: unknown): JsonProblem {
  const text = err instanceof Error ? err.message : String(err);
  const unknownKey = /^cannot decode message (\S+) from JSON: key "(.*)" is unknown$/s.exec(text);
  if (unknownKey) {
    const [, typeName, key] = unknownKey;
    const field = findPath(schema, json, (m, k) => m.typeName === typeName && k === key && !findField(m, k));
    return { field: field ?? key ?? '', description: 'unknown field' };
  }
  const badField = /^cannot decode field (\S+)\.([A-Za-z0-9_]+) from JSON: (.*)$/s.exec(text);
  if (badField) {
    const [, typeName, name, why] = badField;
    const field = findPath(schema, json, (m, k) => m.typeName === typeName && findField(m, k)?.name === name);
    return { field: field ?? name ?? '', description: truncate(why ?? 'invalid value') };
  }
  const badEnum = /^cannot decode enum (\S+) from JSON: (.*)$/s.exec(text);
  if (badEnum) {
    const [, enumName, value] = badEnum;
    const field = findPath(schema, json, (m, k) => findField(m, k)?.enum?.typeName === enumName);
    return { field: field ?? '', description: truncate(`unknown enum value ${value ?? ''}`) };
  }
  return { field: '', description: truncate(text.replace(/^cannot decode /, 'cannot decode request: ')) };
}

function truncate(s: string): string {
  return s.length <= MAX_DESCRIPTION ? s : `${s.slice(0, MAX_DESCRIPTION)}...`;
}

function isObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Depth-first search of the JSON request for the first key the predicate picks. */
function findPath(
  msg: DescMessage,
  json: JsonValue | undefined,
  hit: (msg: DescMessage, key: string) => boolean,
  prefix = '',
  depth = 0,
): string | undefined {
  if (!isObject(json) || depth > MAX_DEPTH || OPAQUE_JSON.has(msg.typeName)) return undefined;
  for (const [key, value] of Object.entries(json)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (hit(msg, key)) return path;
    const f = findField(msg, key);
    if (f === undefined || f.message === undefined) continue;
    const child = f.message;
    let found: string | undefined;
    if (f.fieldKind === 'message') {
      found = findPath(child, value, hit, path, depth + 1);
    } else if (f.fieldKind === 'list' && Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        found ??= findPath(child, item, hit, `${path}[${i}]`, depth + 1);
      }
    } else if (f.fieldKind === 'map' && isObject(value)) {
      for (const [k, item] of Object.entries(value)) {
        found ??= findPath(child, item, hit, `${path}.${k}`, depth + 1);
      }
    }
    if (found !== undefined) return found;
  }
  return undefined;
}
