import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@engram/testing';

const run = promisify(execFile);
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

describe('the image (deploy/Dockerfile)', function () {
  it('is built from the Node version of .nvmrc, which satisfies engines', () => {
    const nvmrc = read('.nvmrc').trim();
    assert.match(nvmrc, /^\d+\.\d+\.\d+$/);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const [, major, minor] = /^\^(\d+)\.(\d+)\.0$/.exec(engines) ?? [];
    assert.ok(major, `engines.node is a caret range: ${engines}`);
    const [m, n] = nvmrc.split('.').map(Number);
    assert.ok(m === Number(major) && n! >= Number(minor), `${nvmrc} satisfies ${engines}`);
    const froms = [...read('deploy/Dockerfile').matchAll(/^FROM (\S+)/gm)].map((x) => x[1]);
    assert.equal(froms.length, 2);
    for (const from of froms) assert.equal(from, `node:${nvmrc}-bookworm-slim`);
    assert.match(read('README.md'), new RegExp(`Node\\.js ${nvmrc.replace(/\./g, '\\.')}`));
  });

  it('runs compiled JavaScript as a non-root user, the embedded suite by default, data on a volume', () => {
    const dockerfile = read('deploy/Dockerfile');
    assert.match(dockerfile, /RUN deploy\/image\/build-stage/);
    assert.match(dockerfile, /deploy\/image\/assemble \/src \/app/);
    assert.match(dockerfile, /^USER 1000:1000$/m);
    assert.match(dockerfile, /^VOLUME \["\/data"\]$/m);
    assert.match(dockerfile, /^ENTRYPOINT \["\/app\/deploy\/image\/entrypoint"\]$/m);
    assert.match(dockerfile, /^CMD \["embedded"\]$/m);
    assert.doesNotMatch(dockerfile, /tsx/);
  });

  /**
   * make test has just run `npm ci` from the lock and `tsc -b` on this checkout, so the rehearsal takes
   * those from it (--prebuilt); `make image-rehearsal` runs the whole build stage from nothing.
   */
  it('rehearsal: the runtime tree from the tested checkout, as uid 1000: /readyz, an add + query round trip, a restart', async function () {
    this.timeout(600_000);
    const { stdout } = await run(join(REPO_ROOT, 'deploy/image/rehearse'), ['--prebuilt'], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const step of [
      /build stage \(prebuilt\): the checkout's node_modules and dist\/ \+ npm prune --omit=dev/,
      /no dev dependency, no TypeScript source, no test code/,
      /ready in \d+ s as uid 1000 on a fresh data directory/,
      /add \+ query round trip: memory [0-9a-f-]{36} found/,
      /SIGTERM: exit 0/,
      /restart on the same data directory: memory [0-9a-f-]{36} read back/,
      /^rehearse: ok$/m,
    ]) {
      assert.match(stdout, step);
    }
  });
});
