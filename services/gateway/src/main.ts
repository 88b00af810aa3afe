import { ConfigError, loadEngramConfig } from '@engram/config';
import { createLogger, onTerminationSignal } from '@engram/logger';
import { createGateway } from './server.ts';
import { buildUpstreams } from './upstream-map.ts';

/** The gateway process: config, logger, gateway, listen, and one ordered shutdown on a signal. */
function main(): void {
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
  const gateway = createGateway({
    upstreams: buildUpstreams(config),
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
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

  onTerminationSignal(logger, () => {
    gateway.close().then(
      () => {
        logger.info('gateway stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

main();
