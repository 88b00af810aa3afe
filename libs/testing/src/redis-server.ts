import { ManagedProcess } from './child-process.ts';
import { freePort, portOpen } from './free-port.ts';

/**
 * A redis-server of the test's own on a free port, without persistence, so a test may stop and start
 * it without touching the machine's shared Redis.
 */
export class TestRedisServer {
  private proc: ManagedProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<TestRedisServer> {
    const s = new TestRedisServer(await freePort());
    await s.resume();
    return s;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port. */
  async resume(): Promise<void> {
    const bin = process.env.REDIS_SERVER_BIN ?? 'redis-server';
    this.proc = ManagedProcess.spawn(
      'redis-server',
      bin,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      process.env,
    );
    for (let i = 0; i < 100; i++) {
      if (await portOpen(this.port)) return;
      if (!this.proc.running) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`redis-server did not start\n${this.proc.tail()}`);
  }

  /** Stops the server (SIGTERM, then SIGKILL). */
  async pause(): Promise<void> {
    await this.proc?.stop(5_000);
  }

  stop(): Promise<void> {
    return this.pause();
  }
}
