import type { Tracer } from '@opentelemetry/api';

/**
 * The tracer startTracing registered, or undefined while tracing is off. Instrumented code asks for
 * it first and runs the plain call when it is undefined: with tracing off a boundary costs one
 * variable read (no context lookup, no no-op span, no header). Spans are created only through this
 * tracer, so a provider someone registers on the global API without startTracing is not used.
 */
let current: Tracer | undefined;

export function activeTracer(): Tracer | undefined {
  return current;
}

/** Set by startTracing and its stop function only. */
export function setActiveTracer(tracer: Tracer | undefined): void {
  current = tracer;
}
