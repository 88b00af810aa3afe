import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { channelProof, type InProcessInvoker, type MethodName } from '@engram/grpc-kit';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { runWithRequestContext, type Logger } from '@engram/logger';
import { startHttpServerSpan } from '@engram/telemetry';
import type { Registry as MetricsRegistry } from 'prom-client';
import { ClientAbortedError, DEFAULT_MAX_BODY_BYTES } from './body-reader.ts';
import { answerClientError } from './client-error.ts';
import { DependencyState, UNAVAILABLE_REASONS, type UpstreamFailure } from './dependency-state.ts';
import { writeError } from './error-writer.ts';
import { GatewayError, internalError, methodNotAllowed, routeNotFound } from './gateway-error.ts';
import { MCP_PATH, mcpEndpoint, selfUrl } from './mcp-endpoint.ts';
import { createGatewayMetrics } from './metrics.ts';
import { OPENAPI_PATH } from './openapi/document.ts';
import { openApiHandler } from './openapi/serve.ts';
import { checkReadiness, READINESS_TIMEOUT_MS } from './readiness.ts';
import { pickRequestId } from './request-id.ts';
import { isReadOnly, RouteTable, type Route } from './route-table.ts';
import { StatusFieldRenderer } from './item-status.ts';
import { transcode, type TranscodeDeps } from './transcode.ts';
import { InProcessUpstreams } from './in-process-upstreams.ts';
import { UpstreamPool, type Upstreams } from './upstream.ts';

/** How long an idle client connection is kept open (announced in the Keep-Alive header). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface GatewayDeps {
  /** The descriptor registry; built from `descriptorSet` (or the one `buf build` wrote) when absent. */
  readonly registry?: FileRegistry;
  /** A binary google.protobuf.FileDescriptorSet. */
  readonly descriptorSet?: Uint8Array;
  /** Proto service full name -> "host:port". */
  readonly upstreams: Readonly<Record<string, string>>;
  /**
   * Embedded (EMBEDDED_IN_PROCESS): the handlers of the process's own gRPC server, called in-process
   * instead of over channels to the `upstreams` addresses (which then only name them).
   */
  readonly inProcess?: InProcessInvoker;
  readonly logger: Logger;
  /** Where /metrics comes from; a new registry when absent. */
  readonly metrics?: MetricsRegistry;
  /** How long close() waits for in-flight requests (default 10 s). */
  readonly shutdownTimeoutMs?: number;
  /** Deadline of unary upstream calls (default 30 s). */
  readonly unaryTimeoutMs?: number;
  /** Request body limit (default 8 MiB). */
  readonly maxBodyBytes?: number;
  /** Per-upstream health check timeout of /readyz (default 1 s). */
  readonly readinessTimeoutMs?: number;
  /**
   * ENGRAM_INTERNAL_TOKEN, shared with the services: proves to them the channel (rest, mcp) of the
   * calls the gateway forwards. Without it they record channel grpc (a direct caller's channel).
   */
  readonly internalToken?: string | undefined;
}

export interface Gateway {
  /** The HTTP server; not listening until listen() (or a test's own server.listen). */
  readonly server: Server;
  readonly routes: readonly Route[];
  /** Listens on host:port (0: any free port); resolves with the bound port, rejects on EADDRINUSE. */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, waits for in-flight requests (up to the shutdown timeout), closes channels. */
  close(): Promise<void>;
}

/**
 * Creates the REST gateway: the route table from the descriptors, one channel per upstream (or the
 * in-process handlers, embedded).
 */
export function createGateway(deps: GatewayDeps): Gateway {
  const registry =
    deps.registry ??
    createFileRegistry(fromBinary(FileDescriptorSetSchema, deps.descriptorSet ?? readDescriptorSet()));
  const table = RouteTable.fromRegistry(registry);
  const pool: Upstreams = deps.inProcess
    ? new InProcessUpstreams(deps.upstreams, deps.inProcess)
    : new UpstreamPool(deps.upstreams, readOnlyMethods(table.routes));
  const metrics = createGatewayMetrics(deps.metrics);
  const log = deps.logger.child({ component: 'gateway' });
  const upstreamState = new DependencyState(log);
  const transcodeDeps: TranscodeDeps = {
    registry,
    pool,
    unaryTimeoutMs: deps.unaryTimeoutMs ?? 30_000,
    maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    statusFields: new StatusFieldRenderer(registry),
    channelProof: deps.internalToken ? channelProof(deps.internalToken) : undefined,
  };
  const unrouted = [...new Set(table.routes.map((r) => r.service.typeName))].filter(
    (s) => !pool.hasService(s),
  );
  if (unrouted.length > 0)
    log.warn({ services: unrouted }, 'services with REST routes but no upstream address');

  let closing = false;
  const builtins = new Map<string, (res: ServerResponse) => Promise<void> | void>([
    ['/healthz', (res) => writeJson(res, 200, { status: 'ok' })],
    [
      '/readyz',
      async (res) => {
        const report = await checkReadiness(pool, deps.readinessTimeoutMs ?? READINESS_TIMEOUT_MS);
        const ready = report.ready && !closing;
        writeJson(res, ready ? 200 : 503, {
          status: ready ? 'ready' : 'not_ready',
          upstreams: report.upstreams,
        });
      },
    ],
    [
      '/metrics',
      async (res) => {
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
    ],
    [OPENAPI_PATH, openApiHandler(table, registry)],
  ]);
  // MCP over Streamable HTTP; its tools call this gateway's own REST routes (mcp-endpoint.ts).
  const mcp = mcpEndpoint({
    maxBodyBytes: transcodeDeps.maxBodyBytes,
    baseUrl: () => selfUrl(server.address()),
    logger: log,
  });

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    label: (r: string, upstream?: string) => void,
  ) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';
    if (rawPath === MCP_PATH) {
      label(MCP_PATH);
      return mcp(req, res, requestId);
    }
    const builtin = builtins.get(rawPath);
    if (builtin !== undefined) {
      label(rawPath);
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(['GET', 'HEAD']);
      return builtin(res);
    }
    const found = table.lookup(method, rawPath);
    if (found.kind === 'not_found') throw routeNotFound();
    if (found.kind === 'method_not_allowed') throw methodNotAllowed(found.allow);
    label(found.route.pattern, found.route.service.typeName);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    await transcode(transcodeDeps, req, res, {
      route: found.route,
      variables: found.variables,
      query,
      requestId,
    });
  }

  /**
   * Writes the error. 5xx are logged (with the upstream's status, which never reaches the client),
   * except a 503 saying an upstream or its database is down: that is logged once per outage
   * (DependencyState).
   */
  function fail(res: ServerResponse, err: unknown, route: string, upstream: string | undefined) {
    if (err instanceof ClientAbortedError) return void res.destroy();
    const gwErr = err instanceof GatewayError ? err : internalError(err);
    if (gwErr.httpStatus === 503 && upstream !== undefined && UNAVAILABLE_REASONS.has(gwErr.reason)) {
      upstreamState.unavailable(upstream, gwErr.reason, route, upstreamFailure(gwErr.cause));
    } else if (gwErr.httpStatus >= 500) {
      const cause = gwErr.cause as { code?: unknown; details?: unknown } | undefined;
      if (typeof cause?.code === 'number') {
        log.warn(
          { route, reason: gwErr.reason, grpc_code: cause.code, grpc_details: cause.details },
          'upstream error',
        );
      } else if (gwErr.reason === 'INTERNAL') {
        log.error({ route, err: cause }, 'gateway error');
      } else {
        log.warn({ route, reason: gwErr.reason }, 'upstream error');
      }
    }
    writeError(res, gwErr);
  }

  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    const requestId = pickRequestId(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    if (closing) res.setHeader('connection', 'close');
    let route = 'unmatched';
    let upstream: string | undefined;
    // A span per API request (probes and scrapes are not traced); a no-op while tracing is off.
    const span = startHttpServerSpan(req.method, req.headers, requestId, !builtins.has(req.url ?? ''));
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? res.statusCode : 499;
      span.end(status);
      metrics.observe(req.method ?? 'GET', route, status, seconds);
      // Only a success proves the upstream answered (a 4xx may come from the gateway's own checks).
      if (upstream !== undefined && status >= 200 && status < 300) upstreamState.served(upstream);
      log.info(
        {
          method: req.method,
          route,
          status,
          duration_ms: Math.round(seconds * 1e4) / 10,
          request_id: requestId,
        },
        'request',
      );
      if (closing) server.closeIdleConnections();
    });
    const label = (r: string, service?: string) => {
      route = r;
      upstream = service;
      span.route(r);
    };
    span.run(() =>
      runWithRequestContext({ requestId }, () => {
        dispatch(req, res, requestId, label).catch((err: unknown) => fail(res, err, route, upstream));
      }),
    );
  });

  server.on('clientError', answerClientError);
  // Idle keep-alive connections stay open longer than clients and load balancers keep theirs
  // (60 s is the common idle timeout), so the gateway is never the side that closes a connection a
  // client is about to reuse: a request written into a socket being closed gets no HTTP answer at
  // all. Node's 5 s default made that happen to clients that paused, e.g. during a database outage.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Must exceed keepAliveTimeout, or a connection reused late can be cut while its headers arrive.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;

  let closed: Promise<void> | undefined;
  return {
    server,
    routes: table.routes,
    listen: (port, host) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const addr = server.address();
          resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
        });
      }),
    close() {
      closed ??= (async () => {
        closing = true;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.closeAllConnections();
            resolve();
          }, deps.shutdownTimeoutMs ?? 10_000);
          timer.unref();
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          server.closeIdleConnections();
        });
        pool.close();
      })();
      return closed;
    },
  };
}

/**
 * The methods a failed replica's call may be retried for on another: those behind a GET route, and
 * those the protos declare free of side effects (queries sent as POST).
 */
function readOnlyMethods(routes: readonly Route[]): MethodName[] {
  const out = new Map<string, MethodName>();
  for (const r of routes) {
    if (!isReadOnly(r)) continue;
    out.set(r.grpcPath, { service: r.service.typeName, method: r.method.name });
  }
  return [...out.values()];
}

/** The gRPC message and attempt count of a failed upstream call, for the outage log. */
function upstreamFailure(cause: unknown): UpstreamFailure {
  const err = cause as { details?: unknown; metadata?: { get(key: string): unknown[] } } | undefined;
  const attempts = Number(err?.metadata?.get?.('grpc-previous-rpc-attempts')[0] ?? 0);
  return {
    ...(typeof err?.details === 'string' ? { grpc_details: err.details } : {}),
    previous_attempts: Number.isFinite(attempts) ? attempts : 0,
  };
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
