import {
  bool,
  ConfigError,
  int,
  loadConfig,
  num,
  oneOf,
  optionalInt,
  optionalStr,
  str,
  type ConfigOf,
} from './schema.ts';

const policyAction = ['reject', 'redact', 'flag', 'allow'] as const;

/** The address syntax every *_ADDR setting accepts (README, "Scaling out"). */
const TARGET_DOC =
  ': host:port; a DNS name resolving to every replica (dns:///name:port, e.g. a headless Kubernetes Service); or a list ipv4:host1:port,host2:port. Calls are balanced round robin over all the addresses; the gateway retries a read on another replica when the one serving it fails.';

/**
 * Every Engram setting (docs/architecture.md, Settings). One schema for the suite, so a setting means the same
 * thing in every process and docs/configuration.md is generated from one place.
 */
export const engramSchema = {
  // Storage and transport
  databaseUrl: optionalStr(
    'DATABASE_URL',
    'PostgreSQL primary (with pgvector). Unset: embedded PGlite in ENGRAM_DATA_DIR.',
    { secret: true },
  ),
  databaseReadUrl: optionalStr(
    'DATABASE_READ_URL',
    'Optional read replica for read paths; audit writes always go to the primary.',
    { secret: true },
  ),
  databasePoolMax: int('DATABASE_POOL_MAX', 'Connections per process to each database.', {
    default: 10,
    min: 1,
    max: 200,
  }),
  databaseWriteGroupMax: int(
    'DATABASE_WRITE_GROUP_MAX',
    'The most single-memory writes memory-store sends as one statement (group commit: writes that arrive while earlier ones run share the next statement, so a busy store pays one statement, one run of the lexical trigger and one commit per group; a write alone runs at once). 1 sends every write as a statement of its own.',
    { default: 64, min: 1, max: 256 },
  ),
  databaseConnectTimeoutMs: int(
    'DATABASE_CONNECT_TIMEOUT_MS',
    'PostgreSQL: a new connection must be ready within this, else the request answers 503 DEPENDENCY_UNAVAILABLE.',
    { default: 3_000, min: 100, max: 600_000 },
  ),
  databaseAcquireTimeoutMs: int(
    'DATABASE_ACQUIRE_TIMEOUT_MS',
    'PostgreSQL: longest wait for a free pool connection before 503 DEPENDENCY_UNAVAILABLE.',
    { default: 3_000, min: 100, max: 600_000 },
  ),
  databaseQueryTimeoutMs: int(
    'DATABASE_QUERY_TIMEOUT_MS',
    'PostgreSQL: longest wait for one statement, on the client (a server that does not answer) and on the server (statement_timeout); then 503 DEPENDENCY_UNAVAILABLE. 0: none. Migrations are not bounded.',
    { default: 5_000, min: 0, max: 3_600_000 },
  ),
  hnswM: optionalInt(
    'HNSW_M',
    'HNSW graph degree (pgvector m) of the embedding index, used when the store is initialised (its embedding space pinned) and by `engram reembed`; afterwards the store keeps the value it was built with. Unset: the default of the embedding provider on the store’s engine (hash 24 on PostgreSQL and 16 on PGlite, openai and local 16; docs/decisions.md).',
    { min: 2, max: 100 },
  ),
  hnswEfConstruction: optionalInt(
    'HNSW_EF_CONSTRUCTION',
    'HNSW build candidate list (pgvector ef_construction), used like HNSW_M. Unset: the default of the embedding provider on the store’s engine (hash 200 on PostgreSQL and 128 on PGlite, openai and local 64).',
    { min: 4, max: 1000 },
  ),
  hnswEfSearch: optionalInt(
    'HNSW_EF_SEARCH',
    'HNSW candidate list of a vector search (pgvector hnsw.ef_search), recorded with the embedding space like HNSW_M: the value when the store is initialised, changed later with `engram reembed`; every process reads it from the store. Higher finds more of the exact nearest neighbours at a higher cost per query. Unset: the default of the embedding provider (200 for hash, openai and local; docs/benchmarks.md).',
    { min: 10, max: 1000 },
  ),
  pgliteWorker: bool(
    'PGLITE_WORKER',
    'Embedded PGlite runs on a worker thread of its own, beside the services on the main thread (true), or on the main thread (false). On by default: with group commit the thread takes about 1.7 times the writes per second of the main thread at 16 clients and a fifth more queries (docs/benchmarks.md); false saves the worker’s start and a copy of each statement’s rows.',
    { default: true },
  ),
  dataDir: str('ENGRAM_DATA_DIR', 'Embedded data directory (PGlite files, generated keys).', {
    default: './data',
  }),
  host: str('ENGRAM_HOST', 'Address the HTTP and gRPC listeners bind to.', { default: '127.0.0.1' }),
  httpPort: int('ENGRAM_HTTP_PORT', 'Gateway REST port (0 picks a free port).', {
    default: 8080,
    min: 0,
    max: 65535,
  }),
  grpcPort: int('ENGRAM_GRPC_PORT', 'gRPC port of this process (embedded: all services on one port).', {
    default: 50051,
    min: 0,
    max: 65535,
  }),
  embeddedInProcess: bool(
    'EMBEDDED_IN_PROCESS',
    "All-in-one (embedded) process: the gateway and the services call each other's handlers in-process, with the semantics of a gRPC call (metadata, deadline, cancellation, error status) but no socket (true), or over loopback gRPC to the process's own server (false). The gRPC server listens either way, for external clients. Distributed processes ignore it.",
    { default: true },
  ),
  metricsPort: int(
    'ENGRAM_METRICS_PORT',
    'Port of GET /metrics (Prometheus) of a gRPC service process; 0 serves none. Off by default because several processes may share a host; the Kubernetes manifests set 9464. The gateway (and all-in-one) always serve /metrics on ENGRAM_HTTP_PORT.',
    { default: 0, min: 0, max: 65535 },
  ),
  natsUrl: optionalStr('NATS_URL', 'NATS server with JetStream for audit events. Unset: in-process bus.'),
  natsStream: str('NATS_STREAM', 'JetStream stream of audit events.', { default: 'ENGRAM_AUDIT' }),
  eventsDelivery: oneOf(
    'EVENTS_DELIVERY',
    "Where each process's outbox relay publishes audit events. auto: NATS JetStream when NATS_URL is set, the in-process bus when embedded (no DATABASE_URL); with DATABASE_URL and no NATS_URL the process refuses to start, since its relay would mark the shared outbox's events published into a bus no one else hears. nats: NATS_URL is required. in-process: the in-process bus although DATABASE_URL is set, only when no process on that database uses NATS (e.g. one all-in-one process on PostgreSQL).",
    ['auto', 'nats', 'in-process'],
    { default: 'auto' },
  ),
  eventsMaxPublishAttempts: int(
    'EVENTS_MAX_PUBLISH_ATTEMPTS',
    'Failed publishes of one audit event alone (the broker refused it, or published other events meanwhile) after which the relay moves it to the dead letter: audit_events.dead_lettered_at, an EVENT_DEAD_LETTERED audit record, engram_events_dead_lettered_total. An outage of the whole publisher never counts: those events wait.',
    { default: 10, min: 1, max: 1000 },
  ),
  redisUrl: optionalStr(
    'REDIS_URL',
    'Redis for rate limits shared across instances. Unset: in-process limits.',
  ),
  ingestSecurityAddr: str(
    'INGEST_SECURITY_ADDR',
    `gRPC target of ingest-security (distributed mode)${TARGET_DOC}`,
    {
      default: '127.0.0.1:50052',
    },
  ),
  memoryStoreAddr: str('MEMORY_STORE_ADDR', `gRPC target of memory-store (distributed mode)${TARGET_DOC}`, {
    default: '127.0.0.1:50053',
  }),
  retrievalRankingAddr: str(
    'RETRIEVAL_RANKING_ADDR',
    `gRPC target of retrieval-ranking (distributed mode)${TARGET_DOC}`,
    {
      default: '127.0.0.1:50054',
    },
  ),
  aceFeedbackAddr: str('ACE_FEEDBACK_ADDR', `gRPC target of ace-feedback (distributed mode)${TARGET_DOC}`, {
    default: '127.0.0.1:50055',
  }),
  securityAdminAddr: str(
    'SECURITY_ADMIN_ADDR',
    `gRPC target of security-admin (distributed mode)${TARGET_DOC}`,
    {
      default: '127.0.0.1:50056',
    },
  ),
  logLevel: oneOf(
    'LOG_LEVEL',
    'pino log level.',
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
    { default: 'info' },
  ),
  shutdownTimeoutMs: int(
    'SHUTDOWN_TIMEOUT_MS',
    'Graceful shutdown deadline before connections are forced closed.',
    { default: 10000, min: 0 },
  ),

  // Keys
  serviceApiKey: optionalStr(
    'SERVICE_API_KEY',
    'Bootstrap key: system trust in project "default", the instance administrator.',
    { secret: true },
  ),
  serviceIntegrityKey: optionalStr(
    'SERVICE_INTEGRITY_KEY',
    'HMAC key for memory signatures; falls back to SERVICE_API_KEY.',
    { secret: true },
  ),
  internalToken: optionalStr(
    'ENGRAM_INTERNAL_TOKEN',
    'Shared secret services present to each other on internal RPCs, and from which the gateway proves the provenance channel of the calls it forwards (required when distributed, by the gateway too).',
    { secret: true },
  ),

  // Stage 1 limits
  contentMaxLength: int('CONTENT_MAX_LENGTH', 'Maximum content length in characters.', {
    default: 50000,
    min: 1,
  }),
  metadataMaxDepth: int('METADATA_MAX_DEPTH', 'Maximum metadata nesting depth.', { default: 5, min: 1 }),
  metadataMaxKeys: int('METADATA_MAX_KEYS', 'Maximum metadata keys at all levels together.', {
    default: 50,
    min: 0,
  }),

  // Content policy
  contentPolicyPii: oneOf('CONTENT_POLICY_PII', 'Action on personal data (ssn, email).', policyAction, {
    default: 'flag',
  }),
  contentPolicySecrets: oneOf(
    'CONTENT_POLICY_SECRETS',
    'Action on secrets (payment_card, api_key, password).',
    policyAction,
    { default: 'reject' },
  ),
  contentPolicyInjection: oneOf('CONTENT_POLICY_INJECTION', 'Action on prompt injection.', policyAction, {
    default: 'flag',
  }),
  contentPolicyInjectionGlobalScope: oneOf(
    'CONTENT_POLICY_INJECTION_GLOBAL_SCOPE',
    'Action on injection entering global scope; inherit uses CONTENT_POLICY_INJECTION.',
    [...policyAction, 'inherit'],
    { default: 'reject' },
  ),
  enableLlmInjectionClassifier: bool(
    'ENABLE_LLM_INJECTION_CLASSIFIER',
    'Stage 4: ask an OpenAI-compatible chat model.',
    { default: false },
  ),
  injectionClassifierEscalation: oneOf(
    'INJECTION_CLASSIFIER_ESCALATION',
    'Which writes stage 4 is asked about: conditions (every write the specification allows), uncertain (content screened as data that no rule flagged and whose learned score is in its uncertain band), off; auto: conditions when ENABLE_LLM_INJECTION_CLASSIFIER is on, else uncertain when INJECTION_CLASSIFIER_BASE_URL is set, else off.',
    ['auto', 'conditions', 'uncertain', 'off'],
    { default: 'auto' },
  ),
  injectionClassifierBaseUrl: optionalStr(
    'INJECTION_CLASSIFIER_BASE_URL',
    'Stage 4 endpoint base URL (…/v1).',
  ),
  injectionClassifierApiKey: optionalStr('INJECTION_CLASSIFIER_API_KEY', 'Stage 4 API key.', {
    secret: true,
  }),
  injectionClassifierModel: str('INJECTION_CLASSIFIER_MODEL', 'Stage 4 model name.', {
    default: 'gpt-4o-mini',
  }),
  injectionClassifierConfidenceThreshold: num(
    'INJECTION_CLASSIFIER_CONFIDENCE_THRESHOLD',
    'Stage 4 flag threshold (>= 0.8 always rejects).',
    { default: 0.7, min: 0, max: 1 },
  ),
  injectionClassifierTimeoutMs: int(
    'INJECTION_CLASSIFIER_TIMEOUT_MS',
    'Stage 4 timeout; on timeout the regex verdict stands.',
    { default: 2000, min: 1 },
  ),

  // Integrity
  integrityReadMode: oneOf(
    'INTEGRITY_READ_MODE',
    'What reads do with a row whose signature fails.',
    ['drop', 'flag', 'off'],
    { default: 'drop' },
  ),
  integrityRequireSigned: bool(
    'INTEGRITY_REQUIRE_SIGNED',
    'Treat unsigned rows as failing on read. Relabel and consolidation never trust an unsigned row either way.',
    { default: false },
  ),

  // Authorization and ranking
  enableTrustLevels: bool('ENABLE_TRUST_LEVELS', 'Forbid internal principals from writing global scope.', {
    default: false,
  }),
  lexicalExact: bool(
    'LEXICAL_EXACT',
    'Hybrid queries read posting lists until their BM25 top k is proven exact (cost grows with the corpus); false: one bounded round per query, exact whenever its score bound proves it.',
    { default: false },
  ),
  enableTrustWeightedRanking: bool(
    'ENABLE_TRUST_WEIGHTED_RANKING',
    'Fuse similarity with trust, votes, recency and provenance.',
    { default: false },
  ),
  rankingWSimilarity: num('RANKING_W_SIMILARITY', 'Weight of cosine similarity.', {
    default: 0.6,
    min: 0,
    max: 1,
  }),
  rankingWTrust: num('RANKING_W_TRUST', 'Weight of content trust.', { default: 0.1, min: 0, max: 1 }),
  rankingWEffectiveness: num('RANKING_W_EFFECTIVENESS', 'Weight of vote effectiveness.', {
    default: 0.15,
    min: 0,
    max: 1,
  }),
  rankingWRecency: num('RANKING_W_RECENCY', 'Weight of temporal decay.', { default: 0.1, min: 0, max: 1 }),
  rankingWProvenance: num('RANKING_W_PROVENANCE', 'Weight of provenance depth.', {
    default: 0.05,
    min: 0,
    max: 1,
  }),
  rateLimitProjectPerMinute: int('RATE_LIMIT_PROJECT_PER_MINUTE', 'Requests per minute per project.', {
    default: 1200,
    min: 1,
  }),
  rateLimitAgentPerMinute: int('RATE_LIMIT_AGENT_PER_MINUTE', 'Requests per minute per acting agent.', {
    default: 300,
    min: 1,
  }),
  idempotencyTtlHours: int(
    'IDEMPOTENCY_TTL_HOURS',
    'How long a write answered under an Idempotency-Key is replayed to a repeat of that key (per project and API key); afterwards the key may be used again.',
    { default: 24, min: 1, max: 720 },
  ),

  // Embeddings
  embeddingProvider: oneOf('EMBEDDING_PROVIDER', 'Embedding provider.', ['local', 'openai', 'hash'], {
    default: 'local',
  }),
  embeddingModel: str('EMBEDDING_MODEL', 'Model name for local or openai.', {
    default: 'Xenova/all-MiniLM-L6-v2',
  }),
  embeddingModelPath: optionalStr(
    'EMBEDDING_MODEL_PATH',
    'Directory holding the local model (air-gapped installs).',
  ),
  embeddingDimensions: int(
    'EMBEDDING_DIMENSIONS',
    'Vector dimensions (hash provider; must match the model otherwise).',
    { default: 384, min: 8, max: 4096 },
  ),
  embeddingBaseUrl: optionalStr('EMBEDDING_BASE_URL', 'OpenAI-compatible embeddings base URL (…/v1).'),
  embeddingApiKey: optionalStr('EMBEDDING_API_KEY', 'OpenAI-compatible embeddings API key.', {
    secret: true,
  }),
  embeddingEncodingFormat: oneOf(
    'EMBEDDING_ENCODING_FORMAT',
    'How the openai provider asks for vectors: base64 (little-endian float32, what the official SDKs ask for; a quarter of the bytes and no number parsing) or float (JSON numbers, for a server that refuses the encoding_format field). An answer in either form is read whichever was asked.',
    ['base64', 'float'],
    { default: 'base64' },
  ),

  // Tracing: OpenTelemetry's own variables (the exporter reads other OTEL_EXPORTER_OTLP_*, e.g. headers)
  otelExporterOtlpEndpoint: optionalStr(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTLP/HTTP collector base URL (e.g. http://127.0.0.1:4318); traces are sent as JSON to <url>/v1/traces. Unset, with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT unset too: no tracing, at no cost.',
  ),
  otelExporterOtlpTracesEndpoint: optionalStr(
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'Full OTLP/HTTP traces URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
  ),
  otelServiceName: optionalStr(
    'OTEL_SERVICE_NAME',
    'service.name of the spans. Unset: the process name (gateway, memory-store, ..., engram when embedded).',
  ),
  otelTracesSampler: oneOf(
    'OTEL_TRACES_SAMPLER',
    'Which traces are recorded.',
    [
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
      'always_on',
      'always_off',
      'traceidratio',
    ],
    { default: 'parentbased_always_on' },
  ),
  otelTracesSamplerArg: num(
    'OTEL_TRACES_SAMPLER_ARG',
    'Share of traces the *traceidratio samplers record, 0 to 1.',
    { default: 1, min: 0, max: 1 },
  ),
} as const;

export type EngramConfig = ConfigOf<typeof engramSchema>;

/** Loads and cross-checks the settings; throws ConfigError naming the variable on the first problem. */
export function loadEngramConfig(env: Readonly<Record<string, string | undefined>>): EngramConfig {
  const cfg = loadConfig(engramSchema, env);
  const sum =
    cfg.rankingWSimilarity +
    cfg.rankingWTrust +
    cfg.rankingWEffectiveness +
    cfg.rankingWRecency +
    cfg.rankingWProvenance;
  if (Math.abs(sum - 1) > 1e-6) {
    throw new ConfigError('RANKING_W_*', `weights must sum to 1.0, they sum to ${sum.toFixed(4)}`);
  }
  return cfg;
}
