import { context, diag, DiagLogLevel, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { activeTracer, setActiveTracer } from './state.ts';

/** OTEL_TRACES_SAMPLER values (the OpenTelemetry SDK environment specification). */
export const TRACES_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** Where warnings of the SDK (a failed export) go; a pino logger fits. */
export interface TracingLogger {
  warn(obj: object, msg: string): void;
}

export interface TracingOptions {
  /** service.name of every span of this process (OTEL_SERVICE_NAME, else the process's name). */
  readonly serviceName: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to <endpoint>/v1/traces. */
  readonly endpoint?: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full traces URL; wins over `endpoint`. */
  readonly tracesEndpoint?: string | undefined;
  readonly sampler?: TracesSampler;
  /** Ratio of the *traceidratio samplers, 0 to 1. */
  readonly samplerArg?: number;
  /** Export here instead of OTLP (tests: an InMemorySpanExporter); spans are handed over as they end. */
  readonly exporter?: SpanExporter;
  /** Batch spans for `exporter` as for OTLP (benchmarks); default false. */
  readonly batch?: boolean;
  readonly logger?: TracingLogger;
  /** How long stopping waits for the last export; default 5000. */
  readonly flushTimeoutMs?: number;
}

/** Flushes the spans still queued, then unregisters tracing; never rejects, safe to call more than once. */
export type StopTracing = () => Promise<void>;

const NOTHING_TO_STOP: StopTracing = () => Promise.resolve();
const DEFAULT_FLUSH_TIMEOUT_MS = 5000;

/** The traces URL the OTLP settings name, or undefined when tracing is off. */
export function otlpTracesUrl(endpoint?: string, tracesEndpoint?: string): string | undefined {
  if (tracesEndpoint) return tracesEndpoint;
  if (!endpoint) return undefined;
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

let starting = false;

/**
 * Starts tracing for this process when an OTLP endpoint (or an exporter) is given, and does nothing
 * otherwise: the SDK is not even loaded then, and every instrumented boundary runs its plain call.
 * Registers a tracer provider with the W3C trace-context propagator and an AsyncLocalStorage context
 * manager on the global API, exporting over OTLP/HTTP (JSON) in batches. One provider per process:
 * a second call (embedded mode, a test that started tracing first) keeps the first and returns a
 * stop function that does nothing.
 */
export async function startTracing(opts: TracingOptions): Promise<StopTracing> {
  const url = otlpTracesUrl(opts.endpoint, opts.tracesEndpoint);
  if (url === undefined && opts.exporter === undefined) return NOTHING_TO_STOP;
  if (starting || activeTracer() !== undefined) return NOTHING_TO_STOP;
  starting = true;
  try {
    const [sdk, { W3CTraceContextPropagator }, { AsyncLocalStorageContextManager }, resources] =
      await Promise.all([
        import('@opentelemetry/sdk-trace-base'),
        import('@opentelemetry/core'),
        import('@opentelemetry/context-async-hooks'),
        import('@opentelemetry/resources'),
      ]);
    const exporter =
      opts.exporter ??
      new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
    const processor =
      opts.exporter === undefined || opts.batch === true
        ? new sdk.BatchSpanProcessor(exporter)
        : new sdk.SimpleSpanProcessor(exporter);
    const provider = new sdk.BasicTracerProvider({
      resource: resources
        .defaultResource()
        .merge(resources.resourceFromAttributes({ 'service.name': opts.serviceName })),
      sampler: buildSampler(sdk, opts.sampler ?? 'parentbased_always_on', opts.samplerArg ?? 1),
      spanProcessors: [processor],
    });
    if (opts.logger) diag.setLogger(diagLogger(opts.logger), DiagLogLevel.WARN);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    setActiveTracer(provider.getTracer('@engram/telemetry'));
    let stopped: Promise<void> | undefined;
    return () => {
      stopped ??= (async () => {
        setActiveTracer(undefined);
        try {
          // Exports what the batch processor still holds, for a bounded time: the exporter retries a
          // collector that is down for about ten seconds, which must not hold up the process's exit.
          await withTimeout(provider.shutdown(), opts.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS);
        } catch (err) {
          // A collector that is down must not fail the shutdown: the spans are lost, and said so.
          opts.logger?.warn(
            { component: 'opentelemetry', detail: err instanceof Error ? err.message : String(err) },
            'could not export the last spans',
          );
        } finally {
          trace.disable();
          propagation.disable();
          context.disable();
          diag.disable();
        }
      })();
      return stopped;
    };
  } finally {
    starting = false;
  }
}

type Sdk = typeof SdkTraceBase;

function buildSampler(sdk: Sdk, name: TracesSampler, ratio: number): Sampler {
  const root = (kind: 'on' | 'off' | 'ratio'): Sampler =>
    kind === 'on'
      ? new sdk.AlwaysOnSampler()
      : kind === 'off'
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(ratio);
  switch (name) {
    case 'always_on':
      return root('on');
    case 'always_off':
      return root('off');
    case 'traceidratio':
      return root('ratio');
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: root('off') });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: root('ratio') });
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: root('on') });
  }
}

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The SDK's own warnings and errors (an export that failed) as log lines; nothing below WARN. */
function diagLogger(logger: TracingLogger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) => {
    const detail = args[0] instanceof Error ? args[0].message : undefined;
    logger.warn({ component: 'opentelemetry', ...(detail ? { detail } : {}) }, message);
  };
  const ignore = () => {};
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}
