import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { isIdempotentWrite } from '@engram/grpc-kit';
import { isStringSettable } from '../field-path.ts';
import { NDJSON_CONTENT_TYPE } from '../ndjson-stream.ts';
import type { Route } from '../route-table.ts';
import { leadingComment } from './comments.ts';
import { errorResponseRef, ERROR_SCHEMA } from './error-schema.ts';
import { documented, SCHEMA_REF, type Schema, type SchemaComponents } from './json-schema.ts';

export const SECURITY_SCHEME = 'ApiKey';

/**
 * Error statuses particular to an RPC (full method name), beyond those every route can answer
 * (400, 401, 403, 429, 5xx), 404 on routes with path variables and 413/415 on routes with a body.
 * They come from the domain errors each service raises; a test checks that every name is routed.
 */
export const RPC_ERROR_STATUSES: Readonly<Record<string, readonly string[]>> = {
  'engram.ingest.v1.IngestService.AddMemory': ['409', '422'],
  'engram.ingest.v1.IngestService.AddEpisodic': ['409', '422'],
  'engram.ingest.v1.IngestService.AddSemantic': ['409', '422'],
  'engram.ingest.v1.IngestService.AddProcedural': ['409', '422'],
  'engram.ingest.v1.IngestService.AddControl': ['409', '422'],
  'engram.memory.v1.MemoryStoreService.RelabelMemory': ['409'],
  'engram.ace.v1.AceService.AddReflection': ['409', '422'],
  'engram.ace.v1.AceService.CreateSession': ['409'],
  'engram.ace.v1.AceService.UpdateSession': ['409'],
  'engram.ace.v1.AceService.CreateFeature': ['409'],
  'engram.ace.v1.AceService.CompleteFeature': ['409'],
  'engram.ace.v1.AceService.FailFeature': ['409'],
  'engram.ace.v1.AceService.StartRun': ['404', '409'],
  'engram.ace.v1.AceService.CompleteRun': ['409', '422'],
  'engram.ace.v1.AceService.Consolidate': ['501'],
  'engram.admin.v1.AdminService.CreateProject': ['409'],
  'engram.admin.v1.AdminService.CreateKey': ['404'],
};

/**
 * The Idempotency-Key header (idempotency-key.ts checks it on every route but GET). It makes a write
 * RPC answer a repeat with its first answer for 24 hours; on reads that take a body it is ignored.
 */
const IDEMPOTENCY_KEY_PARAMETER: Schema = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes a retry safe: a repeat of this write with the same key (same API key) within 24 hours ' +
    'returns the first answer and changes nothing; the same key with another request is 422 ' +
    'IDEMPOTENCY_KEY_REUSED, and while the first is running 409 IDEMPOTENCY_KEY_IN_PROGRESS. ' +
    'Ignored by requests that change nothing.',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

/** The OpenAPI path of a route: each variable as `{field.path}` (its `=pattern` moves to the schema). */
export function openApiPath(route: Route): string {
  const { segments, variables, verb } = route.template;
  const parts: string[] = [];
  let unnamed = 0;
  for (let i = 0; i < segments.length; i++) {
    const variable = variables.find((v) => v.start === i);
    if (variable !== undefined) {
      parts.push(`{${variable.fieldPath.join('.')}}`);
      i = variable.end - 1;
      continue;
    }
    const seg = segments[i];
    if (seg?.kind === 'literal') parts.push(seg.value);
    else parts.push(`{_${++unnamed}}`);
  }
  return `/${parts.join('/')}${verb === undefined ? '' : `:${verb}`}`;
}

/** The operation of one route: parameters, request body, the response and the errors it may answer. */
export function buildOperation(route: Route, operationId: string, components: SchemaComponents): Schema {
  const comment = leadingComment(route.method);
  const parameters = [
    ...pathParameters(route, components),
    ...queryParameters(route, components),
    ...(route.httpMethod === 'GET' ? [] : [IDEMPOTENCY_KEY_PARAMETER]),
  ];
  const summary = summaryOf(comment, route.method.name);
  const op: Schema = {
    operationId,
    tags: [route.service.typeName],
    summary,
    // The whole comment when it says more than its first sentence.
    ...(comment !== undefined && comment.replace(/\.$/, '') !== summary ? { description: comment } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
  };
  const body = requestBody(route, components);
  if (body !== undefined) op.requestBody = body;
  op.responses = responses(route, components);
  op.security = [{ [SECURITY_SCHEME]: [] }];
  op['x-grpc-method'] = route.grpcPath;
  if (route.method.deprecated) op.deprecated = true;
  return op;
}

/** The first sentence of the RPC's comment, else its name in words ("ApplyDelta" -> "Apply delta"). */
function summaryOf(comment: string | undefined, name: string): string {
  if (comment !== undefined) {
    const end = comment.search(/\.(\s|$)/);
    return end < 0 ? comment : comment.slice(0, end);
  }
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function pathParameters(route: Route, components: SchemaComponents): Schema[] {
  const { segments, variables } = route.template;
  const params: Schema[] = [];
  for (const v of variables) {
    const pf = route.pathFields.find((p) => p.name === v.fieldPath.join('.'));
    const leaf = pf?.fields[pf.fields.length - 1];
    if (leaf === undefined) continue;
    const covered = segments.slice(v.start, v.end);
    const single = covered.length === 1 && covered[0]?.kind === 'wildcard';
    const schema = single
      ? components.field(leaf)
      : documented(
          { type: 'string', pattern: segmentsPattern(covered) },
          `${leadingComment(leaf) ?? ''}\nSpans several path segments; the "/" between them are sent as they are.`.trim(),
        );
    params.push(parameter(v.fieldPath.join('.'), 'path', schema, true));
  }
  let unnamed = 0;
  for (const [i, seg] of segments.entries()) {
    if (seg.kind === 'literal' || variables.some((v) => i >= v.start && i < v.end)) continue;
    params.push(
      parameter(
        `_${++unnamed}`,
        'path',
        {
          type: 'string',
          description: 'Any path segment (matched, not bound to a request field).',
        },
        true,
      ),
    );
  }
  return params;
}

function segmentsPattern(segs: Route['template']['segments']): string {
  let pattern = '';
  for (const [i, s] of segs.entries()) {
    if (s.kind === 'deep') {
      pattern += i === 0 ? '.*' : '(/.*)?';
      continue;
    }
    if (i > 0) pattern += '/';
    pattern += s.kind === 'literal' ? s.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : '[^/]+';
  }
  return `^${pattern}$`;
}

/**
 * Query parameters as request-binding.ts reads them: on routes without `body: "*"`, every field
 * settable from one string that neither the path nor the body binds, nested message fields by
 * dotted name (one level of each message type, so recursive types end), repeated ones as `?x=a&x=b`.
 */
function queryParameters(route: Route, components: SchemaComponents): Schema[] {
  if (route.body === '*') return [];
  const pathBound = new Set(route.pathFields.map((pf) => pf.fields.map((f) => f.name).join('.')));
  const params: Schema[] = [];
  const walk = (msg: DescMessage, prefix: string, seen: ReadonlySet<string>) => {
    for (const f of msg.fields) {
      const name = prefix + f.name;
      if (pathBound.has(name) || (prefix === '' && f === route.bodyField)) continue;
      if (isStringSettable(f)) {
        params.push(queryParameter(name, f, components));
      } else if (isNestable(f) && !seen.has(f.message.typeName)) {
        walk(f.message, `${name}.`, new Set([...seen, f.message.typeName]));
      }
    }
  };
  walk(route.method.input, '', new Set([route.method.input.typeName]));
  return params;
}

/** A singular message field whose fields bind by dotted name (not a well-known type). */
function isNestable(f: DescField): f is DescField & { fieldKind: 'message'; message: DescMessage } {
  return f.fieldKind === 'message' && !f.message.typeName.startsWith('google.protobuf.');
}

function queryParameter(name: string, f: DescField, components: SchemaComponents): Schema {
  const p = parameter(name, 'query', components.field(f), false);
  if (f.fieldKind === 'list') {
    p.style = 'form';
    p.explode = true;
  }
  return p;
}

function parameter(name: string, where: 'path' | 'query', schema: Schema, required: boolean): Schema {
  const { description, ...rest } = schema;
  return {
    name,
    in: where,
    ...(description !== undefined ? { description } : {}),
    required,
    schema: rest,
  };
}

function requestBody(route: Route, components: SchemaComponents): Schema | undefined {
  if (route.body === '') return undefined;
  const schema =
    route.bodyField === undefined ? components.ref(route.method.input) : components.field(route.bodyField);
  const pathNote =
    route.pathFields.length > 0
      ? ' Path variables set their fields and win over the same fields in the body.'
      : '';
  return {
    description:
      (route.body === '*'
        ? 'The request message as JSON; an empty body is {}.'
        : `The request field ${route.body} as JSON; the other fields come from the query.`) + pathNote,
    content: { 'application/json': { schema } },
  };
}

/** The JSON of one response message as the gateway writes it (the response_body field when set). */
function messageSchema(route: Route, components: SchemaComponents): Schema {
  const f = route.responseField;
  if (f === undefined) return components.ref(route.method.output);
  const schema = components.field(f);
  // An unset message field or unset optional scalar is written as null.
  const nullable =
    f.fieldKind === 'message' ||
    ((f.fieldKind === 'scalar' || f.fieldKind === 'enum') && f.proto.proto3Optional);
  return nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
}

function responses(route: Route, components: SchemaComponents): Schema {
  const row = messageSchema(route, components);
  const out: Schema = {
    '200': route.serverStreaming
      ? {
          description:
            'A stream of JSON objects, one per line. A failure after the first line ends the stream ' +
            'with one error line {"error": {...}}; a failure before it is an ordinary error response.',
          content: {
            [NDJSON_CONTENT_TYPE]: { schema: { oneOf: [row, { $ref: SCHEMA_REF + ERROR_SCHEMA }] } },
          },
        }
      : { description: 'OK', content: { 'application/json': { schema: row } } },
  };
  const statuses = new Set(['400', '401', '403', '429', '500', '503', '504']);
  if (route.pathFields.length > 0) statuses.add('404');
  if (route.body !== '') {
    statuses.add('413');
    statuses.add('415');
  }
  for (const s of RPC_ERROR_STATUSES[route.method.parent.typeName + '.' + route.method.name] ?? [])
    statuses.add(s);
  if (isIdempotentWrite(route.grpcPath)) {
    statuses.add('409');
    statuses.add('422');
  }
  for (const s of [...statuses].sort()) out[s] = errorResponseRef(s);
  out.default = errorResponseRef('default');
  return out;
}
