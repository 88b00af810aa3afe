/**
 * Every Prometheus metric Engram exports, as data: the registry creates the prom-client objects
 * from it and docs/metrics.md is generated from it, so the two cannot drift. Label values are
 * bounded sets (method names of the service definitions, fixed enums); never ids, paths, project
 * ids or content, which would grow the series without bound.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDef<L extends string = string, T extends MetricType = MetricType> {
  readonly name: string;
  readonly type: T;
  readonly help: string;
  readonly labels: readonly L[];
  /** Histogram upper bounds: seconds, or a count for a histogram of sizes. */
  readonly buckets?: readonly number[];
  /** Which processes export it (docs/metrics.md). */
  readonly exportedBy: string;
}

function counter<const L extends string>(d: Omit<MetricDef<L, 'counter'>, 'type'>): MetricDef<L, 'counter'> {
  return { ...d, type: 'counter' };
}

function gauge<const L extends string>(d: Omit<MetricDef<L, 'gauge'>, 'type'>): MetricDef<L, 'gauge'> {
  return { ...d, type: 'gauge' };
}

function histogram<const L extends string>(
  d: Omit<MetricDef<L, 'histogram'>, 'type'> & { buckets: readonly number[] },
): MetricDef<L, 'histogram'> {
  return { ...d, type: 'histogram' };
}

/** Latency buckets: from a cached read (ms) to a write embedded locally and screened by an LLM (s). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

const GRPC = 'every gRPC service';

export const METRICS = {
  // Per RPC, named as go-grpc-prometheus names them, so existing dashboards and alerts apply.
  grpcServerStarted: counter({
    name: 'grpc_server_started_total',
    help: 'RPCs started on the server (after decoding, before authentication).',
    labels: ['grpc_type', 'grpc_service', 'grpc_method'],
    exportedBy: GRPC,
  }),
  grpcServerHandled: counter({
    name: 'grpc_server_handled_total',
    help: 'RPCs completed on the server, by status code.',
    labels: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'],
    exportedBy: GRPC,
  }),
  grpcServerHandlingSeconds: histogram({
    name: 'grpc_server_handling_seconds',
    help: 'Time from the start of an RPC to its status (a stream: to its last message), in seconds.',
    labels: ['grpc_type', 'grpc_service', 'grpc_method'],
    buckets: LATENCY_BUCKETS,
    exportedBy: GRPC,
  }),

  // Content security (ingest-security).
  screeningVerdicts: counter({
    name: 'engram_screening_verdicts_total',
    help: 'Writes screened by the content policy, by the verdict (the most severe action of their detections; allow when none).',
    labels: ['action'],
    exportedBy: 'ingest-security',
  }),
  screeningDetections: counter({
    name: 'engram_screening_detections_total',
    help: 'Detections of the screening stages, by category, stage and the action the policy decided for each.',
    labels: ['category', 'stage', 'action'],
    exportedBy: 'ingest-security',
  }),

  // Integrity (verify-on-read).
  integrityFailures: counter({
    name: 'engram_integrity_failures_total',
    help: 'Memories whose signature failed verification on read (each is also an INTEGRITY_FAILED audit event).',
    labels: ['route', 'status'],
    exportedBy: 'memory-store, retrieval-ranking, ace-feedback, security-admin',
  }),

  // Audit outbox and its relay.
  outboxPendingEvents: gauge({
    name: 'engram_outbox_pending_events',
    help: 'Audit events in the outbox not yet published, counted up to 100000 at scrape time. The outbox is per database: processes sharing one report the same value.',
    labels: [],
    exportedBy: GRPC,
  }),
  outboxOldestAge: gauge({
    name: 'engram_outbox_oldest_event_age_seconds',
    help: 'Age of the oldest unpublished audit event at scrape time (database clock); 0 when the outbox is empty.',
    labels: [],
    exportedBy: GRPC,
  }),
  eventsPublished: counter({
    name: 'engram_events_published_total',
    help: 'Audit events the outbox relay of this process published.',
    labels: [],
    exportedBy: GRPC,
  }),
  eventsPublishFailures: counter({
    name: 'engram_events_publish_failures_total',
    help: 'Failed relay batches: an event the publisher refused (retried after a back-off), or the outbox could not be read or updated.',
    labels: ['reason'],
    exportedBy: GRPC,
  }),
  eventsDeadLettered: counter({
    name: 'engram_events_dead_lettered_total',
    help: 'Audit events the relay of this process moved to the dead letter (dead_lettered_at set; an EVENT_DEAD_LETTERED audit record names each) after EVENTS_MAX_PUBLISH_ATTEMPTS failures of that event alone. An outage of the whole publisher never counts.',
    labels: [],
    exportedBy: GRPC,
  }),

  // Writes.
  dbWriteRetries: counter({
    name: 'engram_db_write_retries_total',
    help: 'Write transactions run again after PostgreSQL aborted them (deadlock detected, serialization failure); the caller sees only the final outcome.',
    labels: ['conflict'],
    exportedBy: 'memory-store',
  }),
  dbGroupCommitWrites: histogram({
    name: 'engram_db_group_commit_writes',
    help: 'Writes of one memory each that went to the database as one statement (group commit: writes that arrive while earlier ones run share the next statement; 1 when the store is not busy).',
    labels: [],
    buckets: [1, 2, 4, 8, 16, 32, 64],
    exportedBy: 'memory-store',
  }),

  // Admission.
  rateLimited: counter({
    name: 'engram_rate_limited_requests_total',
    help: 'Requests refused with RESOURCE_EXHAUSTED by the rate limiter, by the budget that was exhausted.',
    labels: ['scope'],
    exportedBy: GRPC,
  }),

  // Database connection pools.
  heapAfterGc: gauge({
    name: 'engram_heap_after_gc_bytes',
    help: 'V8 heap outside the young generation right after the last full (mark-compact) collection: the live heap, which a leak raises and V8 heap sizing does not; 0 until the first full collection.',
    labels: [],
    exportedBy: 'every process',
  }),
  dbPoolConnections: gauge({
    name: 'engram_db_pool_connections',
    help: 'Connections of the pool at scrape time, by state. Embedded PGlite is one connection.',
    labels: ['pool', 'state'],
    exportedBy: GRPC,
  }),
  dbPoolPendingAcquires: gauge({
    name: 'engram_db_pool_pending_acquires',
    help: 'Queries waiting for a connection of the pool at scrape time.',
    labels: ['pool'],
    exportedBy: GRPC,
  }),
  dbPoolMaxConnections: gauge({
    name: 'engram_db_pool_max_connections',
    help: 'Size limit of the pool (DATABASE_POOL_MAX; 1 for PGlite).',
    labels: ['pool'],
    exportedBy: GRPC,
  }),

  // Gateway (REST).
  httpRequests: counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status.',
    labels: ['method', 'route', 'status'],
    exportedBy: 'gateway',
  }),
  httpRequestDuration: histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template, in seconds.',
    labels: ['route'],
    buckets: LATENCY_BUCKETS,
    exportedBy: 'gateway',
  }),
} as const;

/** The values each label takes: every one a bounded set. */
export const LABEL_VALUES: Readonly<Record<string, string>> = {
  grpc_type: '`unary`, `server_stream`',
  grpc_service: 'full name of a proto service, e.g. `engram.ingest.v1.IngestService`',
  grpc_method: 'a method of that service, e.g. `AddMemory`',
  grpc_code:
    'the gRPC status in go-grpc-prometheus spelling: `OK`, `Canceled`, `Unknown`, `InvalidArgument`, `DeadlineExceeded`, `NotFound`, `AlreadyExists`, `PermissionDenied`, `ResourceExhausted`, `FailedPrecondition`, `Aborted`, `OutOfRange`, `Unimplemented`, `Internal`, `Unavailable`, `DataLoss`, `Unauthenticated`',
  action: 'the content policy actions `allow`, `flag`, `redact`, `reject`',
  category: 'the detection categories `pii`, `secrets`, `injection`',
  stage: '`2` (sensitive data), `3` (injection rules), `4` (LLM classifier)',
  route:
    'the read path: `get`, `deprecate`, `session_timeline`, `entity`, `query`, `typed_query`, `playbook`, `agent_playbook`, `handoff`, `context_load`, `curate`, ...',
  status:
    'integrity: `invalid` (signature mismatch), `unsigned` (with INTEGRITY_REQUIRE_SIGNED); http: the response status code',
  reason: '`publisher` (the publish failed), `database` (reading or updating the outbox failed)',
  scope: '`project`, `agent`',
  conflict: '`deadlock` (SQLSTATE 40P01), `serialization` (40001)',
  pool: '`primary`, `read` (only with DATABASE_READ_URL)',
  state: '`used`, `free`',
  method: 'HTTP methods `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE`, `OPTIONS`, else `OTHER`',
};

/** Printed in docs/metrics.md after the table: what prom-client adds on every registry. */
export const DEFAULT_METRICS_NOTE =
  "Every process also exports prom-client's default metrics: `process_*` (CPU, memory, file descriptors, start time) and `nodejs_*` (event loop lag, heap, garbage collection, active handles).";
