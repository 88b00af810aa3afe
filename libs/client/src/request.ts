import { localError } from './errors.ts';
import type { RouteSpec } from './route-spec.ts';

/** The HTTP form of one call: path with query string, and the JSON body if the route has one. */
export interface HttpRequest {
  readonly pathAndQuery: string;
  readonly body: string | undefined;
}

/**
 * Maps a request object onto a route as the gateway binds it (google.api.http): path parameters
 * are taken out of the request and percent-encoded into the path; with body "*" the rest is the
 * JSON body; with a body field that field is the body and the rest goes to the query string; with
 * no body everything left goes to the query string (repeated fields as repeated parameters,
 * nested message fields as dotted names). Throws a VALIDATION_FAILED EngramError (status 0) when a
 * path parameter is missing or empty, before anything is sent.
 */
export function buildHttpRequest(route: RouteSpec, request: object): HttpRequest {
  const rest: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  let path = route.path;
  for (const name of route.pathParams) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null || value === '') {
      throw localError('INVALID_ARGUMENT', `${name}: is required (a path parameter of ${route.path})`, {
        fieldViolations: [{ field: name, description: 'is required', reason: 'REQUIRED' }],
      });
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw localError('INVALID_ARGUMENT', `${name}: must be a string or a number`, {
        fieldViolations: [
          { field: name, description: 'must be a string or a number', reason: 'INVALID_VALUE' },
        ],
      });
    }
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  }
  let body: string | undefined;
  let queryFields: Record<string, unknown> = {};
  if (route.body === '*') {
    body = JSON.stringify(rest);
  } else if (route.body !== '') {
    const { [route.body]: bodyValue, ...others } = rest;
    body = JSON.stringify(bodyValue ?? {});
    queryFields = others;
  } else {
    queryFields = rest;
  }
  const query = new URLSearchParams();
  appendQuery(query, '', queryFields);
  const qs = query.toString();
  return { pathAndQuery: qs === '' ? path : `${path}?${qs}`, body };
}

function appendQuery(query: URLSearchParams, prefix: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendQuery(query, prefix, item);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      appendQuery(query, prefix === '' ? key : `${prefix}.${key}`, inner);
    }
    return;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    query.append(prefix, String(value));
  } else if (typeof value === 'bigint') {
    query.append(prefix, value.toString());
  }
}
