import assert from 'node:assert/strict';
import {
  create,
  createFileRegistry,
  fromJson,
  setExtension,
  toJson,
  ScalarType,
  type DescExtension,
  type DescField,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
  type Message,
} from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
} from '@bufbuild/protobuf/wkt';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OpenApiResponses, type OpenApiDocument } from '@engram/testing';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { RPC_ERROR_STATUSES } from '../src/openapi/operations.ts';
import { bindRequest } from '../src/request-binding.ts';
import { StatusFieldRenderer } from '../src/item-status.ts';
import { RouteTable, type Route } from '../src/route-table.ts';
import { bindingRegistry, engramRegistry } from './fixtures/descriptors.ts';
import { allAt, deadAddress, startGateway, type RunningGateway } from './fixtures/harness.ts';

/** The gateway's own endpoints: the only operations without a route, besides POST /mcp. */
const GATEWAY_PATHS = ['/healthz', '/readyz', '/metrics', '/openapi.json'];

// Schemas and responses are read as loosely typed JSON; the assertions check their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly description?: string;
  readonly schema: Loose;
}

interface Operation {
  readonly operationId: string;
  readonly tags: string[];
  readonly summary: string;
  readonly parameters?: Parameter[];
  readonly requestBody?: Loose;
  readonly responses: Record<string, Loose>;
  readonly security: unknown;
  readonly 'x-grpc-method'?: string;
}

interface Doc extends OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    readonly schemas: Record<string, Loose>;
    readonly responses: Record<string, Loose>;
    readonly securitySchemes: Record<string, Loose>;
  };
}

function documentOf(registry: FileRegistry): { table: RouteTable; doc: Doc } {
  const table = RouteTable.fromRegistry(registry);
  // Through JSON, as a client reads it.
  return { table, doc: JSON.parse(JSON.stringify(buildOpenApiDocument(table, registry))) as Doc };
}

/** The operation of a method and OpenAPI path; fails the test when the document has none. */
function op(doc: Doc, method: string, path: string): Operation {
  const found = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(found, `no operation ${method} ${path}`);
  return found;
}

/** The parameters of an operation ([] when it has none). */
function paramsOf(doc: Doc, method: string, path: string): Parameter[] {
  return op(doc, method, path).parameters ?? [];
}

/** Every operation of a document with its path. */
function allOperations(doc: Doc): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.values(item).map((o): [string, Operation] => [path, o]),
  );
}

/** The OpenAPI path of a route template, written independently of the generator. */
function expectedPath(pattern: string): string {
  return pattern.replace(/\{([^}=]+)(=[^}]*)?\}/g, '{$1}');
}

async function validateDocument(doc: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.deepEqual(result.errors ?? [], [], JSON.stringify(result.errors, null, 1));
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
}

/** The operations of a document as "METHOD path". */
function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

describe('OpenAPI document (generated from the route table)', () => {
  const registry = engramRegistry();
  const { table, doc } = documentOf(registry);

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator, zero errors)', async () => {
    assert.equal(doc.openapi, '3.1.0');
    await validateDocument(doc);
  });

  it('has one operation per route, same method and path, and none without a route', () => {
    assert.ok(table.routes.length >= 40, `only ${table.routes.length} routes`);
    const fromRoutes = table.routes.map((r) => `${r.httpMethod} ${expectedPath(r.pattern)}`);
    const gateway = [...GATEWAY_PATHS.map((p) => `GET ${p}`), 'POST /mcp'];
    assert.deepEqual(operationsOf(doc).sort(), [...fromRoutes, ...gateway].sort());
    for (const r of table.routes) {
      const o = op(doc, r.httpMethod, expectedPath(r.pattern));
      assert.equal(o['x-grpc-method'], r.grpcPath);
      assert.equal(o.operationId, r.method.name);
      assert.deepEqual(o.tags, [r.service.typeName]);
    }
  });

  it('gives every operation a unique operationId', () => {
    const ids = allOperations(doc).map(([, o]) => o.operationId);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('requires the bearer key on every operation but the gateway endpoints', () => {
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: 'http',
      scheme: 'bearer',
      description: doc.components.securitySchemes.ApiKey.description,
    });
    for (const [path, o] of allOperations(doc)) {
      assert.deepEqual(o.security, GATEWAY_PATHS.includes(path) ? [] : [{ ApiKey: [] }], path);
    }
  });

  it('takes descriptions from the proto comments', () => {
    const get = op(doc, 'GET', '/memories/{id}');
    assert.equal(
      get.summary,
      'Reads one memory; an invisible memory is indistinguishable from a missing one',
    );
    const agent = (get.parameters ?? []).find((p) => p.name === 'agent_id')!;
    assert.equal(agent.in, 'query');
    assert.equal(agent.description, 'The reading agent; defaults to the bound agent of the key.');
    const memory = doc.components.schemas['engram.memory.v1.Memory'];
    assert.match(String(memory.description), /^A memory as every read path returns it/);
    assert.equal(memory.properties.scope.description, 'agent-private, agent-shared, global.');
    // AceService's RPCs have no comment: the summary is the method name in words.
    assert.equal(op(doc, 'POST', '/memories/ace/delta').summary, 'Apply delta');
  });

  it('describes the error body once, and every operation answers it', () => {
    for (const [path, o] of allOperations(doc)) {
      assert.deepEqual(o.responses.default, { $ref: '#/components/responses/Error' }, path);
      for (const [status, response] of Object.entries(o.responses)) {
        if (status.startsWith('2') || (GATEWAY_PATHS.includes(path) && status === '503')) continue;
        // What the MCP protocol refuses has a JSON-RPC error body, as MCP clients expect.
        if (path === '/mcp' && ['400', '406', '415'].includes(status)) continue;
        assert.match(String(response.$ref), /^#\/components\/responses\//, `${path} ${status}`);
      }
    }
    for (const response of Object.values(doc.components.responses)) {
      assert.deepEqual(response.content, {
        'application/json': { schema: { $ref: '#/components/schemas/Error' } },
      });
    }
    const add = op(doc, 'POST', '/memories/add').responses;
    for (const s of ['400', '401', '403', '409', '413', '415', '422', '429', '500', '503'])
      assert.ok(add[s], s);
    assert.ok(op(doc, 'GET', '/memories/{id}').responses['404']);
    assert.equal(op(doc, 'POST', '/memories/query').responses['404'], undefined);
    assert.ok(doc.components.responses.RateLimited.headers['Retry-After']);
  });

  it('lists error statuses only for RPCs that have a route', () => {
    const routed = new Set(table.routes.map((r) => `${r.service.typeName}.${r.method.name}`));
    for (const name of Object.keys(RPC_ERROR_STATUSES)) assert.ok(routed.has(name), name);
  });

  it('describes the export stream as NDJSON rows that may end with an error line', () => {
    const ok = op(doc, 'POST', '/memories/export').responses['200'];
    assert.deepEqual(Object.keys(ok.content as object), ['application/x-ndjson']);
    assert.deepEqual(ok.content['application/x-ndjson'].schema, {
      oneOf: [
        { $ref: '#/components/schemas/engram.memory.v1.Memory' },
        { $ref: '#/components/schemas/Error' },
      ],
    });
  });

  it('declares the Idempotency-Key header on every route but GET, and its 409/422 on writes', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(
        item as Record<
          string,
          {
            parameters?: { in: string; name: string }[];
            responses: Record<string, unknown>;
            'x-grpc-method'?: string;
          }
        >,
      )) {
        if (op['x-grpc-method'] === undefined) continue;
        const has = (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        assert.equal(has, method !== 'get', `${method} ${path}`);
      }
    }
    const add = (doc.paths['/memories/add'] as Record<string, { responses: Record<string, unknown> }>).post!;
    assert.ok(add.responses['409'] && add.responses['422']);
  });

  it('is deterministic', () => {
    assert.deepEqual(documentOf(engramRegistry()).doc, doc);
    assert.deepEqual(Object.keys(doc.paths), Object.keys(doc.paths).sort());
    assert.deepEqual(Object.keys(doc.components.schemas), Object.keys(doc.components.schemas).sort());
  });

  it('documents query parameters the gateway binds, and only those', () => {
    checkQueryParameters(table, registry, doc);
    const names = paramsOf(doc, 'GET', '/security/audit').map((p) => `${p.in}:${p.name}`);
    assert.deepEqual(names, [
      'query:event_type',
      'query:agent_id',
      'query:memory_id',
      'query:since',
      'query:until',
      'query:cursor',
      'query:limit',
    ]);
    // body "*": the query string is not read, so no query parameter is documented (the path
    // variable and the Idempotency-Key header are the only parameters).
    assert.deepEqual(
      paramsOf(doc, 'POST', '/memories/ace/vote/{memory_id}').map((p) => `${p.in}:${p.name}`),
      ['path:memory_id', 'header:Idempotency-Key'],
    );
  });

  it('has schemas that accept what the gateway writes for every message, fully populated or empty', () => {
    checkMessageSchemas(doc, registry);
  });
});

describe('OpenAPI document (field kinds and templates the real contracts lack)', () => {
  const registry = shapesRegistry();
  const { table, doc } = documentOf(registry);
  const schemas = doc.components.schemas;

  it('is valid with patterned variables, "**", verbs, a body field and streaming', async () => {
    await validateDocument(doc);
    const ops = operationsOf(doc);
    for (const r of table.routes)
      assert.ok(ops.includes(`${r.httpMethod} ${expectedPath(r.pattern)}`), r.pattern);
  });

  it('puts a variable pattern into its schema', () => {
    const docs = paramsOf(doc, 'GET', '/v1/{id}/docs')[0]!;
    assert.equal(docs.in, 'path');
    assert.equal(docs.schema.pattern, '^projects/[^/]+$');
    assert.match('projects/p1', new RegExp(docs.schema.pattern as string));
    assert.doesNotMatch('projects/p1/x', new RegExp(docs.schema.pattern as string));
    assert.equal(paramsOf(doc, 'GET', '/files/{id}')[0]!.schema.pattern, '^.*$');
    assert.ok(op(doc, 'POST', '/things/{id}:archive'));
    assert.equal(paramsOf(doc, 'GET', '/nested/{inner.name}/x')[0]!.name, 'inner.name');
  });

  it('binds a body field as the body and the rest from the query', () => {
    const put = op(doc, 'PUT', '/things/{id}');
    assert.deepEqual(put.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/engram.test.v1.Inner',
    });
    const query = (put.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    assert.ok(query.includes('tags') && query.includes('big_number'));
    assert.ok(!query.some((n: string) => n === 'inner' || n.startsWith('inner.')), query.join());
    assert.equal(
      op(doc, 'GET', '/watch/{id}').responses['200'].content['application/x-ndjson'] !== undefined,
      true,
    );
  });

  it('maps scalars, enums, repeated, nested and recursive messages as proto3 JSON', () => {
    const req = schemas['engram.test.v1.BindingRequest'].properties;
    assert.deepEqual(req.big_number, { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' });
    assert.deepEqual(req.score, { type: 'number', format: 'double' });
    assert.deepEqual(req.kind, { $ref: '#/components/schemas/engram.test.v1.Kind' });
    assert.deepEqual(schemas['engram.test.v1.Kind'].enum, ['KIND_UNSPECIFIED', 'KIND_A', 'KIND_B']);
    assert.deepEqual(req.items, {
      type: 'array',
      items: { $ref: '#/components/schemas/engram.test.v1.Inner' },
    });
    assert.deepEqual(schemas['engram.test.v1.Inner'].properties.child, {
      $ref: '#/components/schemas/engram.test.v1.Inner',
    });
    const shape = schemas['engram.shapes.v1.Shape'].properties;
    assert.deepEqual(shape.counts, {
      type: 'object',
      additionalProperties: { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' },
    });
    assert.deepEqual(shape.blob, { type: 'string', contentEncoding: 'base64' });
    assert.deepEqual(shape.wait, { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' });
  });

  it('documents query parameters the gateway binds (repeated, nested, numbers, bools, enums)', () => {
    checkQueryParameters(table, registry, doc);
    const list = paramsOf(doc, 'GET', '/things').map((p) => p.name);
    assert.ok(
      ['tags', 'limit', 'flag', 'inner.name', 'inner.nums', 'big_number', 'kind'].every((n) =>
        list.includes(n),
      ),
    );
    assert.equal(list.includes('items'), false, 'a repeated message cannot be set from the query');
  });

  it('has schemas that accept what the gateway writes, and reject a oneof given twice', () => {
    checkMessageSchemas(doc, registry);
    const v = new OpenApiResponses(doc);
    const pointer = '#/components/schemas/engram.shapes.v1.Shape';
    assert.deepEqual(v.errorsAt(pointer, { a: 'x' }), []);
    assert.notDeepEqual(v.errorsAt(pointer, { a: 'x', b: 1 }), []);
    // fromJson refuses it too: the schema says what the gateway enforces.
    const shape = registry.getMessage('engram.shapes.v1.Shape')!;
    assert.throws(() => fromJson(shape, { a: 'x', b: 1 }, { registry }));
  });
});

describe('GET /openapi.json (the gateway)', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway({ upstreams: allAt(await deadAddress()), readinessTimeoutMs: 200 });
  });
  after(() => gw.stop());

  it('serves the generated document without a key, as cacheable JSON', async () => {
    const res = await fetch(`${gw.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    const served = (await res.json()) as Doc;
    assert.deepEqual(served, documentOf(engramRegistry()).doc);
    const head = await fetch(`${gw.url}/openapi.json`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal((await fetch(`${gw.url}/openapi.json`, { method: 'POST' })).status, 405);
  });

  it('answers every gateway endpoint as the document says', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as Doc;
    const v = new OpenApiResponses(doc);
    for (const path of GATEWAY_PATHS) {
      const res = await fetch(gw.url + path);
      const declared = op(doc, 'GET', path).responses[String(res.status)];
      assert.ok(declared, `${path} answered ${res.status}, which the document does not declare`);
      const [mediaType] = Object.keys(declared.content as object) as [string];
      assert.ok((res.headers.get('content-type') ?? '').startsWith(mediaType), path);
      if (mediaType === 'application/json') {
        assert.deepEqual(v.errors('GET', path, res.status, await res.json()), [], path);
      }
    }
  });
});

/**
 * For every route, a request carrying every documented query parameter (a value its schema allows)
 * binds without a 400 and sets the field; a parameter the gateway would refuse is not documented.
 */
function checkQueryParameters(table: RouteTable, registry: FileRegistry, doc: Doc): void {
  for (const route of table.routes) {
    const params = paramsOf(doc, route.httpMethod, expectedPath(route.pattern));
    const query = new URLSearchParams();
    for (const p of params.filter((x) => x.in === 'query')) {
      const schema = resolve(doc, p.schema);
      const values =
        schema.type === 'array'
          ? [sampleFor(doc, schema.items), sampleFor(doc, schema.items)]
          : [sampleFor(doc, schema)];
      for (const value of values) query.append(p.name, value);
    }
    const variables = new Map(route.pathFields.map((pf) => [pf.name, pathSample(route, pf.name)]));
    const label = `${route.httpMethod} ${route.pattern}?${query.toString()}`;
    let json: Loose;
    try {
      const msg = bindRequest({ route, variables, query, body: undefined }, registry);
      json = toJson(route.method.input, msg, { registry, useProtoFieldName: true });
    } catch (err) {
      assert.fail(`${label}: ${String(err)}`);
    }
    for (const name of new Set(query.keys())) {
      let v: Loose = json;
      for (const part of name.split('.')) v = v?.[part];
      assert.notEqual(v, undefined, `${label}: ${name} was not bound`);
    }
  }
}

function pathSample(route: Route, name: string): string {
  const v = route.template.variables.find((x) => x.fieldPath.join('.') === name);
  const segs = v === undefined ? [] : route.template.segments.slice(v.start, v.end);
  return segs.map((s) => (s.kind === 'literal' ? s.value : 'p1')).join('/') || 'p1';
}

function resolve(doc: Doc, schema: Loose): Loose {
  if (typeof schema?.$ref === 'string') {
    return doc.components.schemas[(schema.$ref as string).slice('#/components/schemas/'.length)];
  }
  return schema;
}

/** A query-string value a schema allows. */
function sampleFor(doc: Doc, schema: Loose): string {
  const s = resolve(doc, schema);
  if (Array.isArray(s.enum)) return s.enum[s.enum.length - 1] as string;
  switch (s.type) {
    case 'boolean':
      return 'true';
    case 'integer':
      return '3';
    case 'number':
      return '1.5';
    default: {
      const pattern: unknown = s.pattern;
      return typeof pattern === 'string' && pattern.includes('0-9') ? '12' : 'v';
    }
  }
}

/**
 * Every message schema of the document accepts the JSON the gateway writes for that message
 * (toJson with the gateway's options) when every field is set, and when none is (implicit defaults).
 */
function checkMessageSchemas(doc: Doc, registry: FileRegistry): void {
  const v = new OpenApiResponses(doc);
  const statusFields = new StatusFieldRenderer(registry);
  let checked = 0;
  for (const name of Object.keys(doc.components.schemas as object)) {
    const desc = registry.getMessage(name);
    if (desc === undefined) continue;
    for (const input of [sampleMessage(desc, 0), {}]) {
      const parsed: Message = fromJson(desc, input, { registry });
      const written: JsonValue = toJson(desc, parsed, {
        registry,
        useProtoFieldName: true,
        alwaysEmitImplicit: true,
      });
      // As transcode.ts writes it: a google.rpc.Status inside a response becomes the error object.
      statusFields.render(desc, parsed, written);
      const errors = v.errorsAt(`#/components/schemas/${name}`, written);
      assert.deepEqual(errors, [], `${name}: ${JSON.stringify(written)}`);
      checked++;
    }
    // The schema is closed and typed: a wrong type and an unknown field are refused.
    if (desc.fields.some((f) => f.fieldKind === 'scalar' && f.scalar === ScalarType.STRING)) {
      const f = desc.fields.find((x) => x.fieldKind === 'scalar' && x.scalar === ScalarType.STRING)!;
      assert.notDeepEqual(v.errorsAt(`#/components/schemas/${name}`, { [f.name]: 42 }), [], name);
    }
    assert.notDeepEqual(v.errorsAt(`#/components/schemas/${name}`, { no_such_field: 'x' }), [], name);
  }
  assert.ok(checked > 0);
}

/** proto3 JSON for a message with every field set (one member per oneof), nested two levels deep. */
function sampleMessage(desc: DescMessage, depth: number): { [k: string]: JsonValue } {
  const out: { [k: string]: JsonValue } = {};
  for (const f of desc.fields) {
    if (f.oneof !== undefined && f.oneof.fields[0] !== f) continue;
    const value = sampleField(f, depth);
    if (value !== undefined) out[f.name] = value;
  }
  return out;
}

function sampleField(f: DescField, depth: number): JsonValue | undefined {
  switch (f.fieldKind) {
    case 'scalar':
      return sampleScalar(f.scalar);
    case 'enum':
      return f.enum.values[f.enum.values.length - 1]?.name ?? 0;
    case 'message':
      return sampleOfMessage(f.message, depth);
    case 'list': {
      const one =
        f.listKind === 'scalar'
          ? sampleScalar(f.scalar)
          : f.listKind === 'enum'
            ? (f.enum.values[1]?.name ?? 0)
            : sampleOfMessage(f.message, depth);
      return one === undefined ? [] : [one, one];
    }
    case 'map': {
      const key = f.mapKey === ScalarType.STRING ? 'k' : f.mapKey === ScalarType.BOOL ? 'true' : '7';
      const value =
        f.mapKind === 'scalar'
          ? sampleScalar(f.scalar)
          : f.mapKind === 'enum'
            ? (f.enum.values[1]?.name ?? 0)
            : sampleOfMessage(f.message, depth);
      return value === undefined ? {} : { [key]: value };
    }
  }
}

function sampleOfMessage(m: DescMessage, depth: number): JsonValue | undefined {
  switch (m.typeName) {
    case 'google.protobuf.Struct':
      return { a: 1, b: [true, null, 'x'], c: { d: 'e' } };
    case 'google.protobuf.Value':
      return 'x';
    case 'google.protobuf.Duration':
      return '1.500s';
    case 'google.protobuf.Timestamp':
      return '2026-01-01T00:00:00Z';
    case 'google.protobuf.Any':
      return {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'VALIDATION_FAILED',
        domain: 'd',
      };
    case 'google.rpc.Status':
      // A refused item as a service sends it: a client error with its ErrorInfo.
      return { code: 3, message: 'text', details: [sampleOfMessage(m.fields[2]!.message!, depth)!] };
    default:
      return depth >= 2 ? undefined : sampleMessage(m, depth + 1);
  }
}

function sampleScalar(scalar: ScalarType): JsonValue {
  switch (scalar) {
    case ScalarType.STRING:
      return 'text';
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return 'AQID';
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 1.5;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return '-9007199254740993';
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return '18446744073709551615';
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return 4000000000;
    default:
      return -7;
  }
}

/**
 * bindingRegistry plus engram.shapes.v1: a oneof, a map, bytes, unsigned and 64-bit integers and a
 * Duration, which the real contracts do not use.
 */
function shapesRegistry(): FileRegistry {
  const base = bindingRegistry();
  const httpExt = base.getExtension('google.api.http') as DescExtension;
  const ruleDesc = base.getMessage('google.api.HttpRule')!;
  const options = create(MethodOptionsSchema);
  setExtension(
    options,
    httpExt,
    create(ruleDesc, { pattern: { case: 'post', value: '/shapes' }, body: '*' }) as never,
  );
  const field = (name: string, number: number, type: Type, extra: Record<string, unknown> = {}) => ({
    name,
    number,
    type,
    jsonName: name,
    label: Label.OPTIONAL,
    ...extra,
  });
  const file = create(FileDescriptorProtoSchema, {
    name: 'engram/shapes/v1/shapes.proto',
    package: 'engram.shapes.v1',
    syntax: 'proto3',
    dependency: ['google/api/annotations.proto', 'google/protobuf/duration.proto'],
    messageType: [
      {
        name: 'Shape',
        field: [
          field('a', 1, Type.STRING, { oneofIndex: 0 }),
          field('b', 2, Type.INT32, { oneofIndex: 0 }),
          field('counts', 3, Type.MESSAGE, {
            label: Label.REPEATED,
            typeName: '.engram.shapes.v1.Shape.CountsEntry',
          }),
          field('blob', 4, Type.BYTES),
          field('big', 5, Type.UINT64),
          field('small', 6, Type.FIXED32),
          field('ratio', 7, Type.FLOAT),
          field('wait', 8, Type.MESSAGE, { typeName: '.google.protobuf.Duration' }),
        ],
        oneofDecl: [{ name: 'choice' }],
        nestedType: [
          {
            name: 'CountsEntry',
            field: [field('key', 1, Type.STRING), field('value', 2, Type.INT64)],
            options: { mapEntry: true },
          },
        ],
      },
    ],
    service: [
      {
        name: 'ShapeService',
        method: [
          {
            name: 'Put',
            inputType: '.engram.shapes.v1.Shape',
            outputType: '.engram.shapes.v1.Shape',
            options,
          },
        ],
      },
    ],
  });
  return createFileRegistry(
    base,
    createFileRegistry(file, (name) => base.getFile(name)),
  );
}
