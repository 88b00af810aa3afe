import { onTerminationSignal, type Logger } from '@engram/logger';

/**
 * The phases of a shutdown, in the order they run. A step is added to its phase whenever the part
 * it closes is made, so a resource built late (the all-in-one's gateway, a lazily opened pool) still
 * closes in its place:
 * - ingress: stop taking requests from outside (the REST gateway);
 * - server: health NOT_SERVING, then drain the gRPC server and the metrics listener;
 * - clients: channels to peer services;
 * - resources: idempotency sweeper, outbox relay and publisher, rate limiter;
 * - storage: the database pools;
 * - telemetry: flush the traces of everything above, then say the process stopped.
 */
export const SHUTDOWN_PHASES = ['ingress', 'server', 'clients', 'resources', 'storage', 'telemetry'] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

interface Step {
  readonly name: string;
  readonly phase: ShutdownPhase;
  readonly run: () => Promise<void> | void;
}

/**
 * Owns a process's shutdown: the steps run one at a time, phase by phase and within a phase in the
 * order they were added, each bounded by the deadline (a step that fails or hangs is logged and the
 * next one runs). Every Engram process has exactly one: the gateway, each service, the all-in-one.
 */
export class Runtime {
  private readonly steps: Step[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  onShutdown(name: string, run: () => Promise<void> | void, phase: ShutdownPhase = 'resources'): void {
    this.steps.push({ name, phase, run });
  }

  /** The steps in the order shutdown() runs them (for logs and tests). */
  plan(): { name: string; phase: ShutdownPhase }[] {
    return this.ordered().map(({ name, phase }) => ({ name, phase }));
  }

  /** Installs SIGTERM/SIGINT handlers that shut down, run `stopped`, and exit 0. */
  installSignalHandlers(stopped?: () => void): void {
    onTerminationSignal(this.logger, () => {
      void this.shutdown().then(() => {
        stopped?.();
        process.exit(0);
      });
    });
  }

  /** Runs the steps once; later calls return the same promise. */
  shutdown(): Promise<void> {
    this.stopping ??= this.runSteps();
    return this.stopping;
  }

  private ordered(): Step[] {
    // Array.prototype.sort is stable: within a phase, the order of addition.
    return [...this.steps].sort(
      (a, b) => SHUTDOWN_PHASES.indexOf(a.phase) - SHUTDOWN_PHASES.indexOf(b.phase),
    );
  }

  private async runSteps(): Promise<void> {
    for (const step of this.ordered()) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(step.run),
          new Promise<void>((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), this.timeoutMs);
          }),
        ]);
      } catch (err) {
        this.logger.warn(
          { step: step.name, phase: step.phase, err: err instanceof Error ? err.message : String(err) },
          'shutdown step failed',
        );
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
