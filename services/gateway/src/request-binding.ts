import { fromJson, type DescMessage, type Message, type Registry } from '@bufbuild/protobuf';
import { describeJsonError } from './json-diagnostics.ts';
import { isStringSettable, resolveFieldPath, setJsonPath, stringToJsonValue } from './field-path.ts';
import { validationFailed, type JsonObject, type JsonValue } from './gateway-error.ts';
import type { Route } from './route-table.ts';

/**
 * Builds the gRPC request message of a route from the HTTP request (google.api.http rules):
 * - body "*": the JSON body is the request; query parameters are not bound;
 * - body "<field>": the JSON body is that field; other fields come from query parameters;
 * - no body: every field not bound by the path comes from query parameters
 *   (`?x=a&x=b` for repeated fields, dotted names for nested message fields).
 * Path variables always win over body and query. Everything is assembled as one proto3 JSON
 * object and parsed once with fromJson, so every field is checked by the same rules.
 */
export interface BindingInput {
  readonly route: Route;
  readonly variables: ReadonlyMap<string, string>;
  readonly query: URLSearchParams;
  /** The raw body, or undefined for routes without a body. */
  readonly body: Uint8Array | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function bindRequest(input: BindingInput, registry: Registry): Message {
  const { route } = input;
  const schema: DescMessage = route.method.input;
  let json: JsonObject = {};
  const parsed = input.body === undefined ? undefined : parseJsonBody(input.body);
  if (route.body === '*') {
    if (parsed !== undefined) {
      if (!isObject(parsed)) throw validationFailed('', 'request body must be a JSON object');
      json = parsed;
    }
  } else {
    if (route.bodyField !== undefined && parsed !== undefined) {
      setJsonPath(json, [route.bodyField], parsed);
    }
    bindQuery(json, input, schema);
  }
  for (const pf of route.pathFields) {
    const raw = input.variables.get(pf.name) ?? '';
    const leaf = pf.fields[pf.fields.length - 1];
    const value = leaf === undefined ? undefined : stringToJsonValue(leaf, raw);
    if (value === undefined) throw validationFailed(pf.name, 'invalid value in the path');
    setJsonPath(json, pf.fields, value);
  }
  try {
    return fromJson(schema, json, { registry });
  } catch (err) {
    const problem = describeJsonError(schema, json, err);
    throw validationFailed(problem.field, problem.description, err);
  }
}

function isObject(v: JsonValue): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses the body; an empty (or all-whitespace) body is no body. */
function parseJsonBody(body: Uint8Array): JsonValue | undefined {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (err) {
    throw validationFailed('', 'request body is not valid UTF-8', err);
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw validationFailed('', 'request body is not valid JSON', err);
  }
}

function bindQuery(json: JsonObject, input: BindingInput, schema: DescMessage): void {
  const pathNames = new Set(input.route.pathFields.map((pf) => pf.fields.map((f) => f.name).join('.')));
  const bodyName = input.route.bodyField?.name;
  const seen = new Set<string>();
  for (const [key, raw] of input.query) {
    const fields = resolveFieldPath(schema, key.split('.'));
    if (typeof fields === 'string') throw validationFailed(key, `unknown query parameter (${fields})`);
    const canonical = fields.map((f) => f.name).join('.');
    // Path variables win; a query parameter naming a path-bound field is ignored.
    if (pathNames.has(canonical)) continue;
    const leaf = fields[fields.length - 1];
    if (leaf === undefined || !isStringSettable(leaf)) {
      throw validationFailed(key, 'this field cannot be set from a query parameter');
    }
    if (bodyName !== undefined && fields[0]?.name === bodyName) {
      throw validationFailed(key, 'this field is bound to the request body');
    }
    const repeated = leaf.fieldKind === 'list';
    if (!repeated && seen.has(canonical)) throw validationFailed(key, 'given more than once');
    seen.add(canonical);
    const value = stringToJsonValue(leaf, raw);
    if (value === undefined) throw validationFailed(key, `invalid value ${JSON.stringify(raw.slice(0, 64))}`);
    setJsonPath(json, fields, value, repeated ? 'append' : 'set');
  }
}
