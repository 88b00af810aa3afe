import { onTerminationSignal, type Logger } from '@engram/logger';

/**
 * Owns a process's shutdown: steps run in the order they were added (health NOT_SERVING, stop the
 * server, drain NATS, close pools), each bounded by the deadline. Signal handlers are installed once.
 */
export class Runtime {
  private readonly steps: { name: string; run: () => Promise<void> | void }[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  onShutdown(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  /** Installs SIGTERM/SIGINT handlers that shut down and exit. */
  installSignalHandlers(): void {
    onTerminationSignal(this.logger, () => void this.shutdown().then(() => process.exit(0)));
  }

  shutdown(): Promise<void> {
    this.stopping ??= this.runSteps();
    return this.stopping;
  }

  private async runSteps(): Promise<void> {
    for (const step of this.steps) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve(step.run()),
          new Promise<void>((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), this.timeoutMs);
          }),
        ]);
      } catch (err) {
        this.logger.warn(
          { step: step.name, err: err instanceof Error ? err.message : String(err) },
          'shutdown step failed',
        );
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
