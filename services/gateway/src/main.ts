import { ConfigError, loadEngramConfig } from '@engram/config';
import { Runtime } from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import { startTracing, tracingOptions } from '@engram/telemetry';
import { createGateway } from './server.ts';
import { buildUpstreams } from './upstream-map.ts';

/** The gateway process: config, logger, tracing, gateway, listen, and the runtime's ordered shutdown on a signal. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadEngramConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`gateway: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  if (!config.internalToken) {
    // Without it the services cannot tell the gateway's calls from a direct gRPC caller's.
    process.stderr.write(
      'gateway: ENGRAM_INTERNAL_TOKEN is required (the same value as the services): it proves the ' +
        'provenance channel (rest, mcp) of the calls the gateway forwards\n',
    );
    process.exit(1);
  }
  // Before the gateway: its upstream channels trace their calls only if made while tracing is on.
  const stopTracing = await startTracing(
    tracingOptions(config, 'gateway', logger.child({ component: 'tracing' })),
  );
  const gateway = createGateway({
    upstreams: buildUpstreams(config),
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    internalToken: config.internalToken,
  });
  gateway.server.listen(config.httpPort, config.host, () => {
    const addr = gateway.server.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : config.httpPort;
    logger.info({ host: config.host, port, routes: gateway.routes.length }, 'gateway listening');
  });
  gateway.server.on('error', (err) => {
    logger.fatal({ err }, 'gateway server failed');
    process.exit(1);
  });

  // The same ordered, bounded shutdown as every service's process (grpc-kit's Runtime): stop taking
  // requests and drain them, then flush the traces, then say so.
  const runtime = new Runtime(logger, config.shutdownTimeoutMs);
  runtime.onShutdown('gateway', () => gateway.close());
  runtime.onShutdown('tracing', stopTracing);
  runtime.onShutdown('stopped', () => logger.info('gateway stopped'));
  runtime.installSignalHandlers();
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
