import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from './child-process.ts';
import { freePort, portOpen } from './free-port.ts';

/**
 * A nats-server with JetStream of the test's own (own port, own storage directory), so a test may stop
 * and restart it without touching the machine's shared server.
 */
export class TestNatsServer {
  private proc: ManagedProcess | undefined;
  readonly storeDir = mkdtempSync(join(tmpdir(), 'engram-nats-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<TestNatsServer> {
    const s = new TestNatsServer(await freePort());
    await s.resume();
    return s;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port and storage directory. */
  async resume(): Promise<void> {
    const bin = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
    this.proc = ManagedProcess.spawn(
      'nats-server',
      bin,
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      process.env,
    );
    for (let i = 0; i < 100; i++) {
      if (await portOpen(this.port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`nats-server did not start\n${this.proc.tail()}`);
  }

  async pause(): Promise<void> {
    await this.proc?.stop(5_000);
  }

  async stop(): Promise<void> {
    await this.pause();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
