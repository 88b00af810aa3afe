import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { errorType } from './error-type.ts';
import { activeTracer } from './state.ts';

/** Messages whose origin is remembered at most; the oldest is forgotten first. */
const MAX_ORIGINS = 10_000;
const origins = new Map<string, SpanContext>();

/**
 * Remembers the span active now as the origin of a message sent later under `messageId` (an audit
 * event appended in a request and published afterwards by the outbox relay), so that the publish
 * joins the request's trace. In this process only: a relay in another process publishes the
 * message in a trace of its own.
 */
export function rememberMessageOrigin(messageId: string): void {
  if (activeTracer() === undefined) return;
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return;
  if (origins.size >= MAX_ORIGINS) {
    const [oldest] = origins.keys();
    if (oldest !== undefined) origins.delete(oldest);
  }
  origins.set(messageId, sc);
}

function parentOf(messageId: string): Context {
  const origin = origins.get(messageId);
  if (origin === undefined) return context.active();
  origins.delete(messageId);
  return trace.setSpanContext(context.active(), origin);
}

export interface PublishSpec {
  /** Span name, e.g. "publish ENGRAM_AUDIT" (low cardinality: not the subject). */
  readonly name: string;
  readonly system: string;
  /** The subject or topic the message goes to. */
  readonly destination: string;
  readonly messageId: string;
}

/**
 * Runs `publish` inside a PRODUCER span, a child of the message's remembered origin (else of the
 * active span, else a new trace). `publish` receives the W3C headers (traceparent, tracestate) to
 * send with the message, or undefined with tracing off, so that consumers can continue the trace.
 */
export function tracePublish<T>(
  spec: PublishSpec,
  publish: (traceHeaders: Readonly<Record<string, string>> | undefined) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return publish(undefined);
  const parent = parentOf(spec.messageId);
  const span = tracer.startSpan(
    spec.name,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [ATTR.messagingSystem]: spec.system,
        [ATTR.messagingDestinationName]: spec.destination,
        [ATTR.messagingOperationType]: 'send',
        [ATTR.messagingOperationName]: 'publish',
        [ATTR.messagingMessageId]: spec.messageId,
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  const headers: Record<string, string> = {};
  propagation.inject(active, headers);
  return context
    .with(active, () => publish(headers))
    .then(
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
