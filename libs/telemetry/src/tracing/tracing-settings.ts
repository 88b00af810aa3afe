import type { TracesSampler, TracingLogger, TracingOptions } from './start-tracing.ts';

/**
 * The OTEL_* settings under the names libs/config gives them (an EngramConfig is one). Structural,
 * so that this lib imports no other Engram lib.
 */
export interface TracingSettings {
  readonly otelExporterOtlpEndpoint?: string | undefined;
  readonly otelExporterOtlpTracesEndpoint?: string | undefined;
  readonly otelServiceName?: string | undefined;
  readonly otelTracesSampler?: TracesSampler;
  readonly otelTracesSamplerArg?: number;
}

/** startTracing's options for a process called `processName` (OTEL_SERVICE_NAME wins). */
export function tracingOptions(
  settings: TracingSettings,
  processName: string,
  logger?: TracingLogger,
): TracingOptions {
  return {
    serviceName: settings.otelServiceName ?? processName,
    endpoint: settings.otelExporterOtlpEndpoint,
    tracesEndpoint: settings.otelExporterOtlpTracesEndpoint,
    ...(settings.otelTracesSampler === undefined ? {} : { sampler: settings.otelTracesSampler }),
    ...(settings.otelTracesSamplerArg === undefined ? {} : { samplerArg: settings.otelTracesSamplerArg }),
    ...(logger === undefined ? {} : { logger }),
  };
}
