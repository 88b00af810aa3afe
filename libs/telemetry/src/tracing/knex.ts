import type { EventEmitter } from 'node:events';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ATTR } from './attributes.ts';
import { errorType } from './error-type.ts';
import { activeTracer } from './state.ts';

/** What knex emits per query (it copies the compiled query; bindings are never read here). */
interface QueryEvent {
  readonly __knexQueryUid?: unknown;
  readonly sql?: unknown;
}

/** Where knex's query events come from: a Knex instance is an EventEmitter. */
export type QueryEventSource = Pick<EventEmitter, 'on'>;

/** Spans left open (a query whose end knex never reported) are closed beyond this many. */
const MAX_OPEN_SPANS = 10_000;

const instrumented = new WeakSet<object>();

/**
 * The first keyword of a statement (SELECT, INSERT, WITH, ...): the span's name and
 * db.operation.name. Only letters, so nothing of a statement's text or values gets out.
 */
export function sqlOperation(sql: unknown): string | undefined {
  if (typeof sql !== 'string') return undefined;
  const m = /^\s*([A-Za-z]{1,20})\b/.exec(sql);
  return m?.[1]?.toUpperCase();
}

/**
 * A CLIENT span per query of this knex instance (and of its transactions), from knex's own
 * query / query-response / query-error events, as a child of the active span. Queries outside any
 * trace (health probes, the outbox relay's polling, migrations) make no span. Attributes are
 * db.system.name and db.operation.name only: neither the statement nor its bound values, which may
 * hold memory content. Safe to call more than once per instance.
 */
export function traceKnexQueries(knex: QueryEventSource, system = 'postgresql'): void {
  if (instrumented.has(knex)) return;
  instrumented.add(knex);
  const open = new Map<string, Span>();
  const finish = (query: QueryEvent | undefined, err?: unknown) => {
    const uid = query?.__knexQueryUid;
    if (typeof uid !== 'string') return;
    const span = open.get(uid);
    if (span === undefined) return;
    open.delete(uid);
    if (err !== undefined) {
      span.setAttribute(ATTR.errorType, errorType(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  knex.on('query', (query: QueryEvent) => {
    const tracer = activeTracer();
    if (tracer === undefined || typeof query.__knexQueryUid !== 'string') return;
    const parent = context.active();
    if (trace.getSpan(parent) === undefined) return;
    const operation = sqlOperation(query.sql);
    const span = tracer.startSpan(
      operation ?? system,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR.dbSystemName]: system,
          ...(operation === undefined ? {} : { [ATTR.dbOperationName]: operation }),
        },
      },
      parent,
    );
    if (open.size >= MAX_OPEN_SPANS) {
      const [oldest] = open.keys();
      if (oldest !== undefined) finish({ __knexQueryUid: oldest });
    }
    open.set(query.__knexQueryUid, span);
  });
  knex.on('query-response', (_response: unknown, query: QueryEvent) => finish(query));
  knex.on('query-error', (err: unknown, query: QueryEvent) => finish(query, err));
}
