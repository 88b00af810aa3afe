import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from './gateway-error.ts';

/**
 * Dotted field paths (path variables, query parameters) resolved against a message descriptor,
 * and the conversion of their string values into proto3 JSON values, so that one fromJson call
 * validates body, path and query together.
 */

/** A field of the message by proto name (agent_id) or JSON name (agentId). */
export function findField(msg: DescMessage, name: string): DescField | undefined {
  return msg.fields.find((f) => f.name === name) ?? msg.fields.find((f) => f.jsonName === name);
}

/**
 * Resolves a dotted path: every field but the last must be a singular message field. Returns the
 * fields along the path, or a problem description.
 */
export function resolveFieldPath(msg: DescMessage, path: readonly string[]): DescField[] | string {
  const fields: DescField[] = [];
  let cur: DescMessage | undefined = msg;
  for (const [i, name] of path.entries()) {
    if (cur === undefined) return `${path.slice(0, i).join('.')} is not a message field`;
    const f = findField(cur, name);
    if (f === undefined) return `unknown field ${JSON.stringify(path.slice(0, i + 1).join('.'))}`;
    fields.push(f);
    cur = f.fieldKind === 'message' && !STRING_WKT.has(f.message.typeName) ? f.message : undefined;
  }
  return fields;
}

/** Well-known message types whose JSON form is a single string or primitive. */
const STRING_WKT = new Set([
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'google.protobuf.FieldMask',
  'google.protobuf.StringValue',
  'google.protobuf.BytesValue',
  'google.protobuf.Int32Value',
  'google.protobuf.UInt32Value',
  'google.protobuf.Int64Value',
  'google.protobuf.UInt64Value',
  'google.protobuf.FloatValue',
  'google.protobuf.DoubleValue',
  'google.protobuf.BoolValue',
]);

/** True for a field that a single string (path variable or query value) may set. */
export function isStringSettable(f: DescField): boolean {
  if (f.fieldKind === 'scalar' || f.fieldKind === 'enum') return true;
  if (f.fieldKind === 'message') return STRING_WKT.has(f.message.typeName);
  if (f.fieldKind === 'list') return f.listKind !== 'message' || STRING_WKT.has(f.message.typeName);
  return false;
}

/**
 * The proto3 JSON value for a string given for the field (or for one element of a repeated field).
 * Numbers stay strings (the JSON mapping accepts them and fromJson checks range and syntax);
 * booleans are parsed here. Returns undefined when the string cannot be such a value.
 */
export function stringToJsonValue(f: DescField, value: string): JsonValue | undefined {
  const isBool = f.scalar === ScalarType.BOOL || f.message?.typeName === 'google.protobuf.BoolValue';
  if (isBool) {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return undefined;
  }
  if (f.enum !== undefined && /^-?\d+$/.test(value)) return Number(value);
  return value;
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Writes a value at the field path into a JSON request object, replacing whatever the path held
 * (under either the proto or the JSON name). With `append`, a repeated leaf gains one element.
 */
export function setJsonPath(
  root: JsonObject,
  fields: readonly DescField[],
  value: JsonValue,
  mode: 'set' | 'append' = 'set',
): void {
  let obj = root;
  for (const [i, f] of fields.entries()) {
    if (f.jsonName !== f.name && Object.hasOwn(obj, f.jsonName)) {
      if (!Object.hasOwn(obj, f.name)) obj[f.name] = obj[f.jsonName] ?? null;
      delete obj[f.jsonName];
    }
    if (i === fields.length - 1) {
      const existing = Object.hasOwn(obj, f.name) ? obj[f.name] : undefined;
      if (mode === 'append' && Array.isArray(existing)) existing.push(value);
      else obj[f.name] = mode === 'append' ? [value] : value;
      return;
    }
    const next = Object.hasOwn(obj, f.name) ? obj[f.name] : undefined;
    if (isPlainObject(next)) obj = next;
    else {
      const created: JsonObject = {};
      obj[f.name] = created;
      obj = created;
    }
  }
}
