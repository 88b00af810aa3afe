import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const run = promisify(execFile);
const CLIENT_DIR = join(REPO_ROOT, 'libs', 'client');
const FIXTURES = fileURLToPath(new URL('./fixtures/client-consumer/', import.meta.url));

/**
 * The environment of the npm, node and tsc children: nothing that would let them resolve a module
 * from the repository (NODE_PATH) or load tsx and the engram-source condition (NODE_OPTIONS).
 */
function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_PATH;
  return env;
}

/** Newest modification time of the files under dir with the given suffix. */
function newest(dir: string, suffix: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(suffix))
      .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
  );
}

interface ErrorFields {
  isEngramError: boolean;
  name: string;
  code: string;
  status: number;
  reason: string;
  message: string;
  fieldViolations: { field: string; description: string; reason?: string }[];
  retryAfterSeconds: number | null;
  requestId: string | null;
  attempts: number;
}

interface ConsumerOutput {
  resolved: string;
  added: { id: string; memory_type: string; deduplicated: boolean };
  read: { id: string; content: string; agent_id: string; memory_type: string; content_flags: string[] };
  queryIds: string[];
  badRequest: ErrorFields | 'accepted';
  exported: { id: string; content: string; integrity_status: string }[];
  import: {
    progress: { sent: number; imported: number; failed: number; batches: number }[];
    sent: number;
    imported: number;
    failed: number;
    batches: number;
    results: { index: number; id: string | null; error: string | null }[];
  };
  targetRows: string[];
  idempotent: Record<'first' | 'repeat' | 'withoutKey', [string, boolean]>;
  rateLimited: ErrorFields | null;
}

describe('@engram/client as a published package: packed, installed outside the workspace, used against a running Engram', function () {
  this.timeout(180_000);
  let work: string;
  let project: string;
  let packed: string[];
  let t: TestEngram | undefined;

  before(async () => {
    // Packing ships dist/ as it stands: the tests assume `make build`, like every compiled-entry test.
    const entry = join(CLIENT_DIR, 'dist', 'index.js');
    if (!existsSync(entry)) throw new Error(`${entry} does not exist: run \`make build\` first`);
    if (newest(join(CLIENT_DIR, 'src'), '.ts') > newest(join(CLIENT_DIR, 'dist'), '.js')) {
      throw new Error('libs/client/dist is older than libs/client/src: run `make build` first');
    }
    // realpath: on macOS the temp directory is a symlink, and node reports resolved paths.
    work = realpathSync(mkdtempSync(join(tmpdir(), 'engram-client-package-')));
    assert.ok(!work.startsWith(REPO_ROOT), 'the consumer project is outside the repository');
    project = join(work, 'consumer');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: CLIENT_DIR,
      env: outsideEnv(),
    });
    const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(result, 'npm pack reported the tarball');
    packed = result.files.map((f) => f.path);

    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'engram-client-consumer', private: true, type: 'module' }, null, 2),
    );
    await run(
      'npm',
      [
        'install',
        join(work, result.filename),
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
      ],
      { cwd: project, env: outsideEnv() },
    );
    for (const f of ['consumer.mjs', 'types.ts']) copyFileSync(join(FIXTURES, f), join(project, f));
    // A low per-agent limit, so that the consumer meets a real 429 within a few dozen requests.
    t = await startTestEngram('pglite', { RATE_LIMIT_AGENT_PER_MINUTE: '40' });
  });
  after(async () => {
    await t?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations, README and LICENSE; no sources, tests or build state', () => {
    for (const expected of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/client.js',
      'dist/generated/api.js',
      'dist/generated/types.d.ts',
    ]) {
      assert.ok(packed.includes(expected), `${expected} is in the tarball`);
    }
    const unwanted = packed.filter((p) =>
      /^src\/|^test\/|tsbuildinfo|\.ts$(?<!\.d\.ts$)|\.d\.ts\.map$/.test(p),
    );
    assert.deepEqual(unwanted, []);
    assert.equal(
      readFileSync(join(CLIENT_DIR, 'LICENSE'), 'utf8'),
      readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'),
      'libs/client/LICENSE is a copy of the repository LICENSE',
    );
  });

  it('installs with no runtime dependency at all', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', '@engram', 'client', 'package.json'), 'utf8'),
    ) as { private?: boolean; license?: string; dependencies?: Record<string, string> };
    assert.equal(manifest.license, 'MIT');
    assert.notEqual(manifest.private, true);
    assert.deepEqual(manifest.dependencies ?? {}, {});
    const installed = readdirSync(join(project, 'node_modules')).filter((d) => !d.startsWith('.'));
    assert.deepEqual(installed, ['@engram']);
    assert.deepEqual(readdirSync(join(project, 'node_modules', '@engram')), ['client']);
  });

  it('from plain node: add, get, query, a 400, export as an async iterator, import with progress, idempotency, a 429', async () => {
    assert.ok(t);
    const content = `Deploys of the payments service fail with E4711 when the canary is unhealthy (${Date.now()}).`;
    const { stdout } = await run('node', ['consumer.mjs'], {
      cwd: project,
      env: outsideEnv({ ENGRAM_URL: t.baseUrl, ENGRAM_API_KEY: t.adminKey, MEMORY_CONTENT: content }),
    });
    const out = JSON.parse(stdout) as ConsumerOutput;

    assert.equal(
      fileURLToPath(out.resolved),
      join(project, 'node_modules', '@engram', 'client', 'dist', 'index.js'),
      'the SDK came from the installed tarball',
    );
    assert.equal(out.added.memory_type, 'semantic');
    assert.deepEqual(
      [out.read.id, out.read.content, out.read.agent_id, out.read.content_flags],
      [out.added.id, content, 'planner', []],
    );
    assert.ok(out.queryIds.includes(out.added.id), 'query finds the memory');

    assert.notEqual(out.badRequest, 'accepted');
    const bad = out.badRequest as ErrorFields;
    assert.deepEqual(
      [bad.isEngramError, bad.name, bad.code, bad.status, bad.reason, bad.attempts],
      [true, 'EngramError', 'INVALID_ARGUMENT', 400, 'VALIDATION_FAILED', 1],
    );
    assert.deepEqual(
      bad.fieldViolations.map((v) => [v.field, v.reason]),
      [['content', 'REQUIRED']],
    );
    assert.match(bad.requestId ?? '', /^[0-9a-f-]{36}$/, "the gateway's x-request-id");

    assert.equal(out.exported.length, 5);
    assert.ok(out.exported.some((r) => r.id === out.added.id && r.content === content));
    assert.ok(out.exported.every((r) => r.integrity_status === 'valid'));

    // Per-row outcomes: the internal key of the target may not import the system-trust row.
    const refused = out.exported.findIndex((r) => r.content === content);
    assert.deepEqual(
      out.import.results.map((r) => [r.index, r.error]),
      out.exported.map((_, i) => [i, i === refused ? 'TRUST_FORBIDDEN' : null]),
    );
    assert.deepEqual(
      out.import.progress.map((p) => [p.sent, p.batches, p.imported + p.failed]),
      [
        [2, 1, 2],
        [4, 2, 4],
        [5, 3, 5],
      ],
    );
    assert.deepEqual(
      [out.import.sent, out.import.imported, out.import.failed, out.import.batches],
      [5, 4, 1, 3],
    );
    assert.deepEqual(out.import.progress[2], { sent: 5, imported: 4, failed: 1, batches: 3 });
    const newIds = out.import.results.filter((r) => r.error === null).map((r) => r.id);
    assert.ok(
      newIds.every((id) => id !== null && !out.exported.some((r) => r.id === id)),
      'new ids',
    );
    assert.deepEqual(
      [...out.targetRows].sort(),
      out.exported
        .filter((r) => r.content !== content)
        .map((r) => r.content)
        .sort(),
    );

    const { first, repeat, withoutKey } = out.idempotent;
    assert.deepEqual(repeat, first, 'the repeat under the same key got the first answer');
    assert.equal(first[1], false);
    assert.deepEqual(
      withoutKey,
      [first[0], true],
      'without the key the same content is a deduplicated write',
    );

    assert.ok(out.rateLimited, 'the consumer met the rate limit');
    assert.deepEqual(
      [out.rateLimited.isEngramError, out.rateLimited.status, out.rateLimited.code, out.rateLimited.reason],
      [true, 429, 'RESOURCE_EXHAUSTED', 'RATE_LIMITED'],
    );
    assert.ok((out.rateLimited.retryAfterSeconds ?? 0) >= 1, 'Retry-After was read');
    assert.equal(out.rateLimited.attempts, 1);
  });

  it('type-checks a TypeScript consumer against the shipped declarations with only the DOM library (no @types/node)', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM', 'DOM.AsyncIterable'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['types.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const { stdout } = await run('node', [tsc, '-p', 'tsconfig.json', '--listFiles'], {
      cwd: project,
      env: outsideEnv(),
    }).catch((err: { stdout?: string }) => {
      const errors = (err.stdout ?? '').split('\n').filter((l) => l.includes('error TS'));
      throw new Error(`tsc failed:\n${errors.join('\n')}`);
    });
    const files = stdout.split('\n').filter((f) => f.trim() !== '');
    const client = files.filter((f) => f.includes('/@engram/client/'));
    assert.ok(
      client.includes(join(project, 'node_modules/@engram/client/dist/generated/types.d.ts')),
      `the declarations come from the installed package: ${client.join(', ')}`,
    );
    assert.deepEqual(
      files.filter(
        (f) => f.includes('@types/node') || (f.includes(REPO_ROOT) && !f.includes('/typescript/lib/')),
      ),
      [],
      'nothing from @types/node or the workspace',
    );
  });
});
