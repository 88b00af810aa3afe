/**
 * `engram memories import` as a user sees it: in a pseudo-terminal (a tmux pane), a progress bar
 * redrawn in place and then the summary; in a pipe, plain lines without a control character.
 * tmux is installed by scripts/ensure-services (make test); without it this suite is skipped.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compiledEntry, REPO_ROOT } from '@engram/testing';
import { connection, engramOk, hasControlCharacters, NO_RATE_LIMITS, seed, waitFor } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const run = promisify(execFile);
const ROWS = 300;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A tmux server of our own (its socket in a temporary directory): nothing else is touched. */
class Tmux {
  constructor(
    private readonly socket: string,
    private readonly config: string,
  ) {}

  async cmd(...args: string[]): Promise<string> {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
    return (await run('tmux', ['-S', this.socket, '-f', this.config, ...args], { env })).stdout;
  }

  /** The shell command, inside a pane, that signals the test: `tmux wait-for`. */
  waitFor(channel: string): string {
    return `tmux -S ${quote(this.socket)} wait-for ${channel}`;
  }

  async stop(): Promise<void> {
    await this.cmd('kill-server').catch(() => undefined);
  }
}

describe('engram memories import on a terminal (tmux)', function () {
  this.timeout(120_000);
  let t: TestEngram;
  let dir: string;
  let tmux: Tmux;
  let file: string;

  before(async function () {
    if (spawnSync('tmux', ['-V']).status !== 0) {
      process.stderr.write(
        '    tmux is not installed (scripts/ensure-services installs it): terminal test skipped\n',
      );
      this.skip();
    }
    t = await startTestEngram('pglite', NO_RATE_LIMITS);
    dir = mkdtempSync(join(tmpdir(), 'engram-tty-'));
    writeFileSync(
      join(dir, 'tmux.conf'),
      'set-option -g remain-on-exit on\nset-option -g history-limit 10000\n',
    );
    tmux = new Tmux(join(dir, 'tmux.sock'), join(dir, 'tmux.conf'));
    await seed(t.admin, 'tty-source', ROWS, 'Terminal import fact');
    file = join(dir, 'export.ndjson');
    const exported = await engramOk(['memories', 'export', '-o', file], connection(t));
    assert.match(exported.stderr, new RegExp(`export: ${ROWS} memories written`));
  });
  after(async () => {
    await tmux?.stop();
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('draws a progress bar in place, then the summary', async () => {
    const raw = join(dir, 'pane.raw');
    const cli = [process.execPath, ...compiledEntry('services/cli', 'engram')];
    const args = ['memories', 'import', file, '--batch-size', '5', '--agent', 'tty'];
    const conn = ['--addr', t.grpcAddress, '--key', t.adminKey];
    // The pane waits for the go signal, so that its output is captured from the first byte, and says
    // how engram exited (tmux's own pane_dead_status is not always set by the time the pane is dead).
    const command = [...cli, ...args, ...conn].map(quote).join(' ');
    const script = `${tmux.waitFor('go')} && ${command}; echo "engram exited with $?"`;
    await tmux.cmd('new-session', '-d', '-s', 'import', '-x', '120', '-y', '40', '-c', REPO_ROOT, script);
    await tmux.cmd('pipe-pane', '-t', 'import', '-o', `cat >> ${quote(raw)}`);
    await tmux.cmd('wait-for', '-S', 'go');
    await waitForAsync(
      async () => (await tmux.cmd('display', '-p', '-t', 'import', '#{pane_dead}')).trim() === '1',
      60_000,
    );
    const screen = await tmux.cmd('capture-pane', '-p', '-t', 'import', '-S', '-');
    assert.match(screen, /^engram exited with 0$/m, screen);

    // The screen: one bar line (redrawn in place, not one line per update) at 100%, then the summary.
    const bars = screen.split('\n').filter((l) => l.startsWith('import ['));
    assert.deepEqual(
      bars.map((l) => l.trimEnd()),
      [`import [${'#'.repeat(30)}] 100% ${ROWS}/${ROWS} imported ${ROWS}, failed 0`],
      screen,
    );
    assert.match(
      screen,
      new RegExp(`^import: read ${ROWS}, imported ${ROWS}, already present 0, failed 0, skipped 0$`, 'm'),
    );
    assert.match(screen, /^last source id: [0-9a-f-]{36} \(resume: --after [0-9a-f-]{36}\)$/m);

    // What the terminal received: frames of the bar on their way to 100%, each drawn over the last.
    await waitFor(
      () => existsSync(raw) && readFileSync(raw, 'utf8').includes('already present'),
      10_000,
      'the pane output',
    );
    const bytes = readFileSync(raw, 'utf8');
    const frames = [...bytes.matchAll(/import \[([#.]{30})\] +(\d+)% (\d+)\/300/g)].map((m) => Number(m[2]));
    assert.ok(frames.length >= 2, `several frames: ${JSON.stringify(frames)}`);
    assert.ok(
      frames.some((p) => p < 100),
      `frames before the end: ${JSON.stringify(frames)}`,
    );
    assert.deepEqual(
      frames,
      [...frames].sort((a, b) => a - b),
      'the bar only moves forward',
    );
    assert.ok(bytes.includes('\x1b['), 'redrawn with cursor control sequences');
  });

  it('prints plain progress lines and no control characters when stderr is not a terminal', async () => {
    const r = await engramOk(
      ['memories', 'import', file, '--batch-size', '5', '--agent', 'piped'],
      connection(t),
    );
    assert.ok(!hasControlCharacters(r.stderr + r.stdout), JSON.stringify(r.stderr));
    const lines = r.stderr.trim().split('\n');
    assert.ok(lines.length >= 2 && lines.length <= 12, r.stderr);
    for (const l of lines) assert.match(l, /^import: \d+% \d+\/300 imported \d+, failed 0$/);
    assert.equal(lines[lines.length - 1], `import: 100% ${ROWS}/${ROWS} imported ${ROWS}, failed 0`);
    assert.match(
      r.stdout,
      new RegExp(`^import: read ${ROWS}, imported ${ROWS}, already present 0, failed 0, skipped 0\n`),
    );
  });
});

async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('timed out waiting for the import in the pane to end');
    await new Promise((r) => setTimeout(r, 100));
  }
}
