import { loadEngramConfig } from '@engram/config';
import { createLogger } from '@engram/logger';
import { runMain, Runtime } from '@engram/runtime';
import { startTracing, tracingOptions } from '@engram/telemetry';
import { createGateway } from './server.ts';
import { buildUpstreams } from './upstream-map.ts';

/**
 * The gateway process: config, logger, tracing, gateway, listen, and the one Runtime's ordered
 * shutdown on a signal (the same as every service's process: stop taking requests and drain them,
 * then flush the traces, then say so).
 */
runMain('gateway', async () => {
  const config = loadEngramConfig(process.env);
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  if (!config.internalToken) {
    // Without it the services cannot tell the gateway's calls from a direct gRPC caller's.
    throw new Error(
      'ENGRAM_INTERNAL_TOKEN is required (the same value as the services): it proves the ' +
        'provenance channel (rest, mcp) of the calls the gateway forwards',
    );
  }
  const runtime = new Runtime(logger, config.shutdownTimeoutMs);
  // Before the gateway: its upstream channels trace their calls only if made while tracing is on.
  runtime.onShutdown(
    'tracing',
    await startTracing(tracingOptions(config, 'gateway', logger.child({ component: 'tracing' }))),
    'telemetry',
  );
  const gateway = createGateway({
    upstreams: buildUpstreams(config),
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    internalToken: config.internalToken,
  });
  const port = await gateway.listen(config.httpPort, config.host);
  logger.info({ host: config.host, port, routes: gateway.routes.length }, 'gateway listening');
  gateway.server.on('error', (err) => {
    logger.fatal({ err }, 'gateway server failed');
    process.exit(1);
  });
  runtime.onShutdown('gateway', () => gateway.close(), 'ingress');
  runtime.onShutdown('stopped', () => logger.info('gateway stopped'), 'telemetry');
  runtime.installSignalHandlers();
});
