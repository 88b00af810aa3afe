import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

describe('README example', function () {
  this.timeout(60_000);

  it('runs and prints the relayed event type', async () => {
    const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(code, 'no ts example in the README');
    // Next to the tests, so '@engram/*' resolves through the workspace's node_modules.
    const file = join(here, `readme-example-${randomBytes(4).toString('hex')}.tmp.ts`);
    writeFileSync(file, code);
    const printed: unknown[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void printed.push(...args);
    try {
      await import(pathToFileURL(file).href);
    } finally {
      console.log = original;
      rmSync(file, { force: true });
    }
    assert.deepEqual(printed, ['KEY_CREATED']);
  });
});
