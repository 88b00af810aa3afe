import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { activeTracer } from './state.ts';

/** The server span of one HTTP request. */
export interface HttpServerSpan {
  /** Names the span after the matched route template (never the raw path, which holds ids). */
  route(template: string): void;
  /** Records the response status and ends the span (5xx marks it failed). */
  end(status: number): void;
  /** Runs `fn` with this span active: the upstream calls it makes join the trace. */
  run<T>(fn: () => T): T;
}

const NOT_TRACED: HttpServerSpan = {
  route() {},
  end() {},
  run: (fn) => fn(),
};

const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'CONNECT',
  'TRACE',
]);

/**
 * Starts the SERVER span of a request, continuing the caller's trace when it sent a `traceparent`.
 * Attributes are the method, the route template, the status and the request id; never the URL,
 * headers or body. With `traced` false (health probes) or tracing off it returns a span that does
 * nothing.
 */
export function startHttpServerSpan(
  method: string | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  requestId: string,
  traced = true,
): HttpServerSpan {
  const tracer = activeTracer();
  if (tracer === undefined || !traced) return NOT_TRACED;
  const verb = method !== undefined && KNOWN_METHODS.has(method) ? method : '_OTHER';
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(
    verb === '_OTHER' ? 'HTTP' : verb,
    {
      kind: SpanKind.SERVER,
      attributes: { [ATTR.httpRequestMethod]: verb, [ATTR.engramRequestId]: requestId },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return {
    route(template) {
      span.updateName(verb === '_OTHER' ? `HTTP ${template}` : `${verb} ${template}`);
      span.setAttribute(ATTR.httpRoute, template);
    },
    end(status) {
      span.setAttribute(ATTR.httpResponseStatusCode, status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    run: (fn) => context.with(active, fn),
  };
}
