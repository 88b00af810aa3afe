import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, compiledEntry, freePort, ManagedProcess, REPO_ROOT } from '@engram/testing';
import { recordFigures } from './figures.ts';
import { sleep, tally, timed, uniqueContent } from './support.ts';

/** A file system of its own for the data directory: a 256 MiB tmpfs that can be filled and made read-only. */
class SmallFileSystem {
  readonly dir = mkdtempSync(join(tmpdir(), 'engram-disk-'));

  mount(): void {
    run('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0755', 'tmpfs', this.dir]);
  }
  readOnly(ro: boolean): void {
    run('mount', ['-o', `remount,${ro ? 'ro' : 'rw'}`, this.dir]);
  }
  /** Writes a filler file until the file system is full; returns the bytes written. */
  fill(): number {
    const fd = openSync(join(this.dir, 'filler'), 'w');
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let written = 0;
    try {
      for (;;) written += writeSync(fd, chunk);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOSPC') throw err;
    } finally {
      closeSync(fd);
    }
    return written;
  }
  unfill(): void {
    rmSync(join(this.dir, 'filler'), { force: true });
  }
  remove(): void {
    spawnSync('umount', [this.dir]);
    rmdirSync(this.dir);
  }
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.stderr.trim()}): this test needs to mount a tmpfs (root or CAP_SYS_ADMIN)`,
    );
}

/**
 * The embedded process (all services on PGlite in one process) with its data directory on a small
 * file system that is filled up, and made read-only: a write while the disk is full answers 503
 * DEPENDENCY_UNAVAILABLE (never a 500 or a dropped connection) and the next write after space is
 * freed succeeds without a restart; a start on a full or read-only directory fails at once with a
 * message that says so; the memories written before are all there afterwards, unchanged.
 */
describe('reliability: embedded mode with a full or read-only data directory', function () {
  this.timeout(300_000);
  const fs = new SmallFileSystem();
  const adminKey = 'egk_disk_' + randomBytes(24).toString('base64url');
  let port = 0;
  let proc: ManagedProcess | undefined;

  const started: ManagedProcess[] = [];
  /** Starts the process (after stopping the one before); returns once it is ready or has exited. */
  const start = async () => {
    await proc?.stop();
    proc = ManagedProcess.spawn(
      'engram',
      process.execPath,
      compiledEntry('services/all-in-one', 'main'),
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ENGRAM_DATA_DIR: join(fs.dir, 'data'),
        ENGRAM_HTTP_PORT: String(port),
        ENGRAM_GRPC_PORT: String(await freePort()),
        SERVICE_API_KEY: adminKey,
        SERVICE_INTEGRITY_KEY: 'disk-test-integrity-key-0123456789abcdef',
        EMBEDDING_PROVIDER: 'hash',
        LOG_LEVEL: 'warn',
      },
      REPO_ROOT,
    );
    started.push(proc);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && proc.running) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return;
      await sleep(250);
    }
  };

  before(async () => {
    fs.mount();
    port = await freePort();
  });
  after(async () => {
    await Promise.all(started.map((p) => p.stop()));
    fs.remove();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed' && proc) console.log(proc.tail(40));
  });

  const written = new Map<string, string>();

  it('answers 503 while the disk is full, keeps serving reads, and writes again once space is free', async () => {
    await start();
    assert.ok(proc?.running, proc?.tail());
    const api = new ApiClient(`http://127.0.0.1:${port}`, adminKey);
    for (let i = 0; i < 5; i++) {
      const content = uniqueContent(0, i);
      const res = await api.post<{ id: string }>('/memories/add', { content, agent_id: 'disk' });
      assert.equal(res.status, 200, res.text);
      written.set(res.body.id, content);
    }
    const filled = fs.fill();
    const whileFull = [];
    for (let i = 0; i < 10; i++) {
      const content = uniqueContent(1, i).repeat(20);
      const o = await timed('add', api.baseUrl, adminKey, 'POST', '/memories/add', {
        content,
        agent_id: 'disk',
      });
      whileFull.push(o);
      // a write the disk still had room for (PGlite's WAL segment was allocated) is acknowledged: kept
      if (o.status === 200) written.set(o.id!, content);
    }
    const counts = tally(whileFull);
    const other = whileFull.filter((o) => o.status !== 200 && o.reason !== 'DEPENDENCY_UNAVAILABLE');
    assert.deepEqual(
      other,
      [],
      `a full disk is a 503 DEPENDENCY_UNAVAILABLE, never a 500: ${JSON.stringify(counts)}`,
    );
    assert.ok(
      (counts['503 DEPENDENCY_UNAVAILABLE'] ?? 0) >= 5,
      `writes are refused: ${JSON.stringify(counts)}`,
    );
    const [id] = written.keys();
    assert.equal((await api.get(`/memories/${id}`)).status, 200, 'reads go on');
    fs.unfill();
    const content = uniqueContent(2, 0);
    const after = await api.post<{ id: string }>('/memories/add', { content, agent_id: 'disk' });
    assert.equal(after.status, 200, after.text);
    written.set(after.body.id, content);
    assert.ok(proc?.running, 'the process stayed up');
    await proc?.stop();
    recordFigures('embedded-disk-full', {
      filler_mib: Math.round(filled / 1048576),
      writes_while_full: counts,
    });
  });

  it('refuses to start on a full data directory, saying it is full', async () => {
    fs.fill();
    await start();
    assert.equal(proc?.running, false, 'it does not start');
    assert.match(proc.output.join('\n'), /failed to start: the data directory .* is full \(no space left/);
    fs.unfill();
  });

  it('refuses to start on a read-only data directory, saying it is read-only', async () => {
    fs.readOnly(true);
    try {
      await start();
      assert.equal(proc?.running, false, 'it does not start');
      assert.match(
        proc.output.join('\n'),
        /failed to start: the data directory .* is on a read-only file system/,
      );
    } finally {
      fs.readOnly(false);
    }
  });

  it('starts again afterwards with every memory written before, unchanged', async () => {
    await start();
    assert.ok(proc?.running, proc?.tail());
    const api = new ApiClient(`http://127.0.0.1:${port}`, adminKey);
    for (const [id, content] of written) {
      const got = await api.get<{ content: string }>(`/memories/${id}`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.content, content);
      const verified = await api.post<{ valid?: boolean }>(`/security/verify/${id}`, {});
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.body.valid, true, 'its signature still verifies');
    }
    recordFigures('embedded-disk-intact', { memories_checked: written.size });
  });
});
