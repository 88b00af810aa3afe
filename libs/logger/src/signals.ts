import type { Logger } from './logger.ts';

/**
 * Runs `stop` once on the first SIGTERM or SIGINT and keeps later signals from killing the process
 * mid-shutdown. A repeated signal is normal, not an escalation: `make` forwards the SIGTERM it receives
 * to its children, so a process started by `make start` and signalled as a process group (Ctrl-C, an
 * orchestrator) receives the signal twice. Shutdown is bounded by the caller's own timeouts.
 */
export function onTerminationSignal(logger: Logger, stop: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop(signal);
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
