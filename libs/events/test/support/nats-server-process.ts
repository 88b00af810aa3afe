import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@engram/testing';

const NATS_SERVER = '/usr/sbin/nats-server';

/**
 * A nats-server child process of this test run (never the machine's shared one), with JetStream file
 * storage in its own directory, so tests can stop and restart it on the same port and store.
 */
export class NatsServerProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  /** Starts on the given port, or a free one. */
  static async start(port?: number): Promise<NatsServerProcess> {
    const server = new NatsServerProcess(
      port ?? (await freePort()),
      mkdtempSync(join(tmpdir(), 'engram-events-nats-')),
    );
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.child) throw new Error('already running');
    const child = spawn(
      NATS_SERVER,
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await waitForPort(this.port, 10_000);
  }

  /** SIGTERM to our own child, by its pid; waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.child = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
