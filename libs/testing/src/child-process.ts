import { spawn, type ChildProcess } from 'node:child_process';

/** A child process whose output is kept (last 200 lines) for failure messages. */
export class ManagedProcess {
  readonly output: string[] = [];
  private exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.output.push(line);
        if (this.output.length > 200) this.output.shift();
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // 'close' waits for every holder of the output pipes too (make's children outlive make on a signal).
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
  }

  /** With group: true the child leads its own process group and stop() signals the whole group. */
  static spawn(
    name: string,
    command: string,
    args: string[],
    env: Record<string, string | undefined>,
    cwd?: string,
    group = false,
  ) {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
    const proc = new ManagedProcess(name, child);
    proc.group = group;
    return proc;
  }

  private group = false;

  private signal(sig: NodeJS.Signals): void {
    if (this.group && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, sig);
        return;
      } catch {
        // the group is gone already
      }
    }
    this.child.kill(sig);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): Promise<number | null> {
    if (this.running) this.signal('SIGKILL');
    return this.exited;
  }

  tail(lines = 30): string {
    return `--- ${this.name} ---\n` + this.output.slice(-lines).join('\n');
  }
}
