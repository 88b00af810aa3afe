import type { DescService, Registry } from '@bufbuild/protobuf';
import type { RouteTable } from '../route-table.ts';
import { leadingComment } from './comments.ts';
import { errorResponseComponents, errorResponseRef, errorSchemas } from './error-schema.ts';
import { SchemaComponents, type Schema } from './json-schema.ts';
import { MCP_PATH } from '../mcp-endpoint.ts';
import { mcpOperation, MCP_TAG } from './mcp-operation.ts';
import { buildOperation, openApiPath, SECURITY_SCHEME } from './operations.ts';

/** The path of the document on the gateway. */
export const OPENAPI_PATH = '/openapi.json';

const GATEWAY_TAG = 'gateway';

/** OpenAPI orders a path item's operations so; the document follows it. */
const METHOD_ORDER = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The OpenAPI 3.1 document of the REST surface, generated from the route table the gateway
 * transcodes with and the descriptors behind it, so the two cannot disagree: one operation per
 * route, the proto comments as descriptions, message schemas in the JSON form the gateway writes,
 * and the gateway's own endpoints. Deterministic: the same descriptors give the same document.
 */
export function buildOpenApiDocument(table: RouteTable, registry: Registry): Schema {
  const components = new SchemaComponents();
  const paths = new Map<string, Map<string, Schema>>();
  const add = (path: string, method: string, op: Schema) => {
    const item = paths.get(path) ?? new Map<string, Schema>();
    if (item.has(method)) throw new Error(`two operations for ${method.toUpperCase()} ${path}`);
    item.set(method, op);
    paths.set(path, item);
  };

  const ids = operationIds(table);
  const services = new Map<string, DescService>();
  for (const [i, route] of table.routes.entries()) {
    services.set(route.service.typeName, route.service);
    add(openApiPath(route), route.httpMethod.toLowerCase(), buildOperation(route, ids[i] ?? '', components));
  }
  for (const [path, op] of Object.entries(gatewayOperations())) add(path, 'get', op);
  add(MCP_PATH, 'post', mcpOperation());

  const errors = errorSchemas(components, registry);
  const tags = [...services.values()]
    .sort((a, b) => compare(a.typeName, b.typeName))
    .map((s) => {
      const description = leadingComment(s);
      return { name: s.typeName, ...(description !== undefined ? { description } : {}) };
    });
  tags.push({ name: GATEWAY_TAG, description: 'Health, readiness, metrics and this document.' });
  tags.push({
    name: MCP_TAG,
    description: 'The Model Context Protocol endpoint: the memory tools for agents (README.md, "MCP").',
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram REST API',
      version: apiVersion(services.values()),
      description:
        'Memory for multi-agent AI systems. Generated from the google.api.http annotations of the ' +
        'protos (the same route table the gateway transcodes with). Every API request carries ' +
        '`authorization: Bearer <api key>`; JSON field names are the proto field names (snake_case). ' +
        'Every error has one body, the Error schema. Every response carries x-request-id.',
    },
    tags,
    paths: Object.fromEntries(
      [...paths.keys()].sort(compare).map((path) => {
        const item = paths.get(path) ?? new Map<string, Schema>();
        const ops = [...item].sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
        return [path, Object.fromEntries(ops)];
      }),
    ),
    components: {
      schemas: Object.fromEntries(
        Object.entries({ ...components.all(), ...errors }).sort(([a], [b]) => compare(a, b)),
      ),
      responses: errorResponseComponents(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'An Engram API key (`engram keys create`, POST /admin/keys or SERVICE_API_KEY).',
        },
      },
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * operationId is the RPC name; when two routes share one (RPCs of the same name in two services,
 * or additional_bindings of one RPC) it is qualified by the service and numbered.
 */
function operationIds(table: RouteTable): string[] {
  const count = new Map<string, number>();
  for (const r of table.routes) count.set(r.method.name, (count.get(r.method.name) ?? 0) + 1);
  const used = new Map<string, number>();
  return table.routes.map((r) => {
    let id = r.method.name;
    if ((count.get(id) ?? 0) > 1) id = `${r.service.name}_${r.method.name}`;
    const n = (used.get(id) ?? 0) + 1;
    used.set(id, n);
    return n === 1 ? id : `${id}_${n}`;
  });
}

/** The versions of the routed proto packages ("v1"): the version of the REST contract. */
function apiVersion(services: Iterable<DescService>): string {
  const versions = new Set<string>();
  for (const s of services) {
    const last = s.file.proto.package.split('.').pop() ?? '';
    if (/^v\d+/.test(last)) versions.add(last);
  }
  return [...versions].sort().join(', ') || '0';
}

/** The gateway's own endpoints (server.ts builtins): no key, GET (and HEAD). */
function gatewayOperations(): Record<string, Schema> {
  const json = (schema: Schema, description: string): Schema => ({
    description,
    content: { 'application/json': { schema } },
  });
  const readiness: Schema = {
    type: 'object',
    required: ['status', 'upstreams'],
    properties: {
      status: { type: 'string', enum: ['ready', 'not_ready'] },
      upstreams: {
        type: 'array',
        items: {
          type: 'object',
          required: ['address', 'services', 'status'],
          properties: {
            address: { type: 'string' },
            services: { type: 'array', items: { type: 'string' } },
            status: {
              type: 'string',
              description:
                'SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, the gRPC code of a failed check, or UNREACHABLE.',
            },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  };
  const op = (operationId: string, summary: string, responses: Schema): Schema => ({
    operationId,
    tags: [GATEWAY_TAG],
    summary,
    responses: { ...responses, default: errorResponseRef('default') },
    security: [],
  });
  return {
    '/healthz': op('Healthz', 'Liveness: the gateway process answers', {
      '200': json(
        {
          type: 'object',
          required: ['status'],
          properties: { status: { const: 'ok' } },
          additionalProperties: false,
        },
        'Alive',
      ),
    }),
    '/readyz': op('Readyz', 'Readiness: every upstream answers its gRPC health check with SERVING', {
      '200': json(readiness, 'Ready'),
      '503': json(readiness, 'Not ready (an upstream is not serving, or the gateway is shutting down)'),
    }),
    '/metrics': op('Metrics', 'Prometheus metrics of the gateway process (docs/metrics.md)', {
      '200': {
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    }),
    [OPENAPI_PATH]: op('OpenApi', 'This document', {
      '200': json({ type: 'object' }, 'The OpenAPI 3.1 document of the REST surface'),
    }),
  };
}
