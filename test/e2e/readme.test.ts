import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, ManagedProcess } from '@engram/testing';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- readme-example:start -->\s*```bash\n([\s\S]*?)```\s*<!-- readme-example:end -->/.exec(
    readme,
  );
  assert.ok(block, 'README.md has the example block');
  return block[1]!;
}

/** curl prints each JSON body without a newline: split the output into whole JSON values and lines. */
function splitOutputs(out: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < out.length) {
    if (/\s/.test(out[i]!)) {
      i++;
      continue;
    }
    if (out[i] !== '{') {
      const end = out.indexOf('\n', i);
      parts.push(out.slice(i, end === -1 ? undefined : end));
      i = end === -1 ? out.length : end + 1;
      continue;
    }
    let depth = 0;
    let inString = false;
    let j = i;
    for (; j < out.length; j++) {
      const c = out[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    parts.push(out.slice(i, j + 1));
    i = j + 1;
  }
  return parts;
}

describe('README: `make start` on an empty data directory, then the curl session', function () {
  this.timeout(120_000);
  let proc: ManagedProcess;
  let dataDir: string;
  let url: string;
  let key: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'engram-readme-'));
    const httpPort = await freePort();
    const env: Record<string, string | undefined> = {
      ...process.env,
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_HTTP_PORT: String(httpPort),
      ENGRAM_GRPC_PORT: String(await freePort()),
    };
    delete env.SERVICE_API_KEY;
    delete env.EMBEDDING_PROVIDER; // the default (local) falls back to hash, loudly
    proc = ManagedProcess.spawn('make start', 'make', ['-s', 'start'], env, ROOT, true);
    url = `http://127.0.0.1:${httpPort}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      assert.ok(proc.running, `make start exited\n${proc.tail()}`);
      assert.ok(Date.now() < deadline, `not ready in time\n${proc.tail()}`);
      const printed = proc.output.find((l) => /^\s+egk_[A-Za-z0-9_-]+$/.test(l));
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (printed && ready) {
        key = printed.trim();
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  after(async () => {
    await proc?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the generated system key once and warns that the local model fell back to hash', () => {
    assert.equal(proc.output.filter((l) => /^\s+egk_/.test(l)).length, 1);
    assert.ok(
      proc.output.some((l) => /falling back to the hash embedder/.test(l)),
      proc.tail(),
    );
  });

  it('runs the README curl session as written', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', readmeExample()], {
      env: { ...process.env, ENGRAM_URL: url, KEY: key },
    });
    const lines = splitOutputs(stdout);
    const added = JSON.parse(lines[0]!) as { id: string; deduplicated: boolean };
    assert.equal(added.deduplicated, false);
    const found = JSON.parse(lines[1]!) as { memories: { id: string; content: string }[] };
    assert.equal(found.memories[0]?.id, added.id);
    const created = JSON.parse(lines[2]!) as { api_key: string; key: { bound_agent_id: string } };
    assert.match(created.api_key, /^egk_/);
    assert.equal(created.key.bound_agent_id, 'planner');
    assert.equal(lines[3], '400');
  });

  it('shuts down in order on SIGTERM (as Ctrl-C or an orchestrator would send it)', async () => {
    await proc.stop();
    assert.ok(proc.output.includes('engram: stopped'), proc.tail());
  });
});
