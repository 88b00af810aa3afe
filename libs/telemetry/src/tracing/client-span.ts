import { context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { errorType } from './error-type.ts';
import { activeTracer } from './state.ts';

/**
 * Runs `call` inside a CLIENT span (a Redis command, say) when it happens within a trace; outside
 * one, or with tracing off, it is `call()`. A failure marks the span with error.type only.
 */
export function traceClientCall<T>(name: string, attributes: Attributes, call: () => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return call();
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return call();
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  return context.with(trace.setSpan(parent, span), call).then(
    (result) => {
      span.end();
      return result;
    },
    (err: unknown) => {
      span.setAttribute(ATTR.errorType, errorType(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw err;
    },
  );
}
