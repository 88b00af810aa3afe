import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODE_ENV, NODE_FLAGS, REPO_ROOT } from '@engram/testing';

const run = promisify(execFile);
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/**
 * The processes the tests measure (the soak's memory above all) run as production starts them: the
 * same Node flags and malloc setting in every start script as in the tests' compiledEntry.
 */
describe('every start script runs the services with the flags the tests run them with', () => {
  it('node is started with NODE_FLAGS wherever a service or the embedded suite is started', () => {
    const flags = NODE_FLAGS.join(' ');
    for (const file of ['deploy/image/entrypoint', 'deploy/local/Procfile', 'scripts/run-distributed']) {
      const starts = read(file)
        .split('\n')
        .filter((l) => /\bnode --\S.*dist\/src\/main\.js/.test(l));
      assert.ok(starts.length > 0, `${file} starts a service`);
      for (const l of starts) assert.ok(l.includes(`node ${flags} `), `${file}: ${l.trim()}`);
    }
  });

  it('glibc malloc gets the same arena limit in the image, the local run and the tests', async () => {
    for (const [k, v] of Object.entries(NODE_ENV)) {
      assert.match(read('deploy/local/processes.env'), new RegExp(`^${k}=${v}$`, 'm'));
      // The image's entry point sets it unless the container's environment does.
      const { stdout } = await run(
        'sh',
        [join(REPO_ROOT, 'deploy/image/entrypoint'), 'sh', '-c', `echo $${k}`],
        {
          env: { PATH: process.env.PATH },
        },
      );
      assert.equal(stdout.trim(), v);
      const { stdout: kept } = await run(
        'sh',
        [join(REPO_ROOT, 'deploy/image/entrypoint'), 'sh', '-c', `echo $${k}`],
        { env: { PATH: process.env.PATH, [k]: '4' } },
      );
      assert.equal(kept.trim(), '4');
    }
  });
});
