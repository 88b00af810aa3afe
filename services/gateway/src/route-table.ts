import type { DescField, DescMethod, DescService, FileRegistry } from '@bufbuild/protobuf';
import { MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import { readHttpBindings } from './http-rules.ts';
import { findField, isStringSettable, resolveFieldPath } from './field-path.ts';
import { validationFailed } from './gateway-error.ts';
import {
  compareSpecificity,
  decodeVariable,
  matchPathTemplate,
  parsePathTemplate,
  type PathTemplate,
} from './path-template.ts';

/** A path variable of a route, resolved to the request fields it sets. */
export interface PathField {
  /** The dotted field path as written in the template, e.g. "session_id". */
  readonly name: string;
  readonly fields: readonly DescField[];
}

/** One REST route: an HTTP method and path template bound to one RPC. */
export interface Route {
  readonly httpMethod: string;
  readonly template: PathTemplate;
  /** The template source, e.g. "/memories/{id}"; also the metrics label. */
  readonly pattern: string;
  readonly service: DescService;
  readonly method: DescMethod;
  /** The gRPC method path, e.g. "/engram.memory.v1.MemoryStoreService/GetMemory". */
  readonly grpcPath: string;
  readonly serverStreaming: boolean;
  /** "" (no body), "*" or the name of one request field. */
  readonly body: string;
  readonly bodyField: DescField | undefined;
  readonly responseField: DescField | undefined;
  readonly pathFields: readonly PathField[];
}

/**
 * A route whose call changes nothing: a GET, or a method the protos declare free of side effects
 * (queries sent as POST). Such a call may be sent again, on another replica, after any failure of
 * the connection that carried it.
 */
export function isReadOnly(route: Route): boolean {
  return (
    route.httpMethod === 'GET' || route.method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS
  );
}

export type RouteLookup =
  | { readonly kind: 'found'; readonly route: Route; readonly variables: ReadonlyMap<string, string> }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] };

export class RouteTableError extends Error {
  override readonly name = 'RouteTableError';
}

export interface RouteTableOptions {
  /** Only services whose full name starts with this are routed (default "engram."). */
  readonly packagePrefix?: string;
}

/**
 * Every REST route of the descriptor set, built once at startup from the google.api.http
 * annotations. Invalid annotations stop the gateway with a message naming the RPC.
 */
export class RouteTable {
  private constructor(readonly routes: readonly Route[]) {}

  static fromRegistry(registry: FileRegistry, opts: RouteTableOptions = {}): RouteTable {
    const prefix = opts.packagePrefix ?? 'engram.';
    const routes: Route[] = [];
    for (const file of registry.files) {
      for (const service of file.services) {
        if (!service.typeName.startsWith(prefix)) continue;
        for (const method of service.methods) {
          for (const binding of readHttpBindings(registry, method)) {
            const route = buildRoute(service, method, binding);
            const clash = routes.find(
              (r) => r.httpMethod === route.httpMethod && r.pattern === route.pattern,
            );
            if (clash !== undefined) {
              throw new RouteTableError(
                `${route.httpMethod} ${route.pattern} is bound to both ${clash.grpcPath} and ${route.grpcPath}`,
              );
            }
            routes.push(route);
          }
        }
      }
    }
    return new RouteTable(routes);
  }

  /**
   * Finds the route for a request path (without query string, still percent-encoded). Among the
   * templates of the request's method that match, the most specific wins; a path that only other
   * methods match is method_not_allowed. Throws a 400 GatewayError on malformed percent-encoding.
   */
  lookup(httpMethod: string, rawPath: string): RouteLookup {
    if (!rawPath.startsWith('/')) return { kind: 'not_found' };
    const segments = rawPath.slice(1).split('/');
    let best: { route: Route; bindings: NonNullable<ReturnType<typeof matchPathTemplate>> } | undefined;
    const allow = new Set<string>();
    for (const route of this.routes) {
      const bindings = matchPathTemplate(route.template, segments);
      if (bindings === undefined) continue;
      allow.add(route.httpMethod);
      if (route.httpMethod !== httpMethod) continue;
      if (best === undefined || compareSpecificity(route.template, best.route.template) < 0) {
        best = { route, bindings };
      }
    }
    if (best === undefined) {
      return allow.size === 0
        ? { kind: 'not_found' }
        : { kind: 'method_not_allowed', allow: [...allow].sort() };
    }
    const variables = new Map<string, string>();
    for (const { variable, raw } of best.bindings) {
      const name = variable.fieldPath.join('.');
      try {
        variables.set(name, decodeVariable(raw));
      } catch (err) {
        throw validationFailed(name, 'malformed percent-encoding in the path', err);
      }
    }
    return { kind: 'found', route: best.route, variables };
  }
}

function buildRoute(
  service: DescService,
  method: DescMethod,
  binding: { httpMethod: string; path: string; body: string; responseBody: string },
): Route {
  const grpcPath = `/${service.typeName}/${method.name}`;
  const fail = (problem: string) => new RouteTableError(`${grpcPath} (${binding.path}): ${problem}`);
  if (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming') {
    throw fail(`${method.methodKind} methods cannot be transcoded`);
  }
  let template: PathTemplate;
  try {
    template = parsePathTemplate(binding.path);
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
  const pathFields = template.variables.map((v): PathField => {
    const fields = resolveFieldPath(method.input, v.fieldPath);
    if (typeof fields === 'string') throw fail(fields);
    const leaf = fields[fields.length - 1];
    if (leaf === undefined || leaf.fieldKind === 'list' || !isStringSettable(leaf)) {
      throw fail(`path variable ${v.fieldPath.join('.')} must be a singular scalar field`);
    }
    return { name: v.fieldPath.join('.'), fields };
  });
  let bodyField: DescField | undefined;
  if (binding.body !== '' && binding.body !== '*') {
    bodyField = findField(method.input, binding.body);
    if (bodyField === undefined) throw fail(`body field ${binding.body} does not exist`);
  }
  let responseField: DescField | undefined;
  if (binding.responseBody !== '') {
    responseField = findField(method.output, binding.responseBody);
    if (responseField === undefined) throw fail(`response_body ${binding.responseBody} does not exist`);
  }
  return {
    httpMethod: binding.httpMethod,
    template,
    pattern: template.source,
    service,
    method,
    grpcPath,
    serverStreaming: method.methodKind === 'server_streaming',
    body: binding.body,
    bodyField,
    responseField,
    pathFields,
  };
}
