import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const run = promisify(execFile);
const PROTO_DIR = join(REPO_ROOT, 'libs', 'proto');
const FIXTURES = fileURLToPath(new URL('./fixtures/proto-consumer/', import.meta.url));

/**
 * The environment of the npm and node children: nothing that would let them resolve a module from
 * the repository (NODE_PATH) or load tsx and the engram-source condition (NODE_OPTIONS).
 */
function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_PATH;
  return env;
}

interface PackedFile {
  path: string;
}

interface ConsumerOutput {
  written: { id: string; memory_type: string };
  read: { id: string; content: string; agent_id: string; memory_type: string };
  invalid: { code: number; reason: string | undefined };
  descriptor_bytes: number;
  resolved: Record<'ingest' | 'grpc' | 'protobuf', string>;
}

describe('@engram/proto as a published package: packed, installed outside the workspace, used over gRPC', function () {
  this.timeout(120_000);
  let work: string;
  let project: string;
  let packed: PackedFile[];
  let t: TestEngram | undefined;

  before(async () => {
    // Packing ships dist/ as it stands: the tests assume `make build`, like every compiled-entry test.
    for (const built of ['dist/descriptor.js', 'dist/gen/engram/ingest/v1/ingest.js']) {
      const file = join(PROTO_DIR, built);
      if (!existsSync(file)) throw new Error(`${file} does not exist: run \`make build\` first`);
    }
    // realpath: on macOS the temp directory is a symlink, and node reports resolved paths.
    work = realpathSync(mkdtempSync(join(tmpdir(), 'engram-proto-package-')));
    project = join(work, 'consumer');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: PROTO_DIR,
      env: outsideEnv(),
    });
    const [result] = JSON.parse(stdout) as { filename: string; files: PackedFile[] }[];
    assert.ok(result, 'npm pack reported the tarball');
    packed = result.files;

    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'engram-proto-consumer', private: true, type: 'module' }, null, 2),
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
    t = await startTestEngram('pglite');
  });
  after(async () => {
    await t?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations, the descriptor set, README and LICENSE; no sources, tests or build state', () => {
    const paths = packed.map((f) => f.path);
    for (const expected of [
      'package.json',
      'README.md',
      'LICENSE',
      'descriptor.binpb',
      'dist/descriptor.js',
      'dist/descriptor.d.ts',
      'dist/gen/engram/ingest/v1/ingest.js',
      'dist/gen/engram/ingest/v1/ingest.d.ts',
      'dist/gen/engram/memory/v1/memory_store.js',
      'dist/gen/grpc/health/v1/health.js',
      'dist/gen/google/rpc/status.d.ts',
    ]) {
      assert.ok(paths.includes(expected), `${expected} is in the tarball`);
    }
    const unwanted = paths.filter((p) =>
      /^src\/|^test\/|tsbuildinfo|\.ts$(?<!\.d\.ts$)|\.d\.ts\.map$/.test(p),
    );
    assert.deepEqual(unwanted, []);
    assert.equal(
      readFileSync(join(PROTO_DIR, 'LICENSE'), 'utf8'),
      readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'),
      'libs/proto/LICENSE is a copy of the repository LICENSE',
    );
  });

  it('installs with its runtime dependencies from the registry, not the workspace', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', '@engram', 'proto', 'package.json'), 'utf8'),
    ) as { private?: boolean; license?: string; dependencies?: Record<string, string> };
    assert.equal(manifest.license, 'MIT');
    assert.notEqual(manifest.private, true);
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}).sort(), [
      '@bufbuild/protobuf',
      '@grpc/grpc-js',
    ]);
    for (const dep of ['@grpc/grpc-js', '@bufbuild/protobuf']) {
      assert.ok(existsSync(join(project, 'node_modules', dep, 'package.json')), `${dep} is installed`);
    }
  });

  it('adds a memory and reads it back over gRPC from plain node, then decodes an error detail', async () => {
    assert.ok(t);
    const content = `The consumer test memory ${Date.now()}: rotate the staging certificates on Fridays.`;
    const { stdout } = await run('node', ['consumer.mjs'], {
      cwd: project,
      env: outsideEnv({
        ENGRAM_GRPC_ADDR: t.grpcAddress,
        ENGRAM_API_KEY: t.adminKey,
        MEMORY_CONTENT: content,
      }),
    });
    const out = JSON.parse(stdout) as ConsumerOutput;
    assert.match(out.written.id, /\S/);
    assert.equal(out.written.memory_type, 'standard');
    assert.deepEqual(out.read, {
      id: out.written.id,
      content,
      agent_id: 'planner',
      memory_type: 'standard',
    });
    assert.deepEqual(out.invalid, { code: 3, reason: 'VALIDATION_FAILED' });
    const descriptorSet = readFileSync(join(PROTO_DIR, 'descriptor.binpb'));
    assert.equal(out.descriptor_bytes, descriptorSet.length, 'the descriptor set ships and loads');
    for (const [name, url] of Object.entries(out.resolved)) {
      const file = fileURLToPath(url);
      assert.ok(
        file.startsWith(join(project, 'node_modules') + '/'),
        `${name} resolved inside the project: ${file}`,
      );
    }
    assert.match(
      out.resolved.ingest,
      /\/node_modules\/@engram\/proto\/dist\/gen\/engram\/ingest\/v1\/ingest\.js$/,
    );
  });

  it('type-checks a TypeScript consumer against the shipped declarations (types condition, no sources)', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          // The consumer's own @types/node would come from its registry install; this is the same package.
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
          types: ['node'],
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
    const proto = stdout.split('\n').filter((f) => f.includes('/@engram/proto/'));
    assert.ok(
      proto.includes(join(project, 'node_modules/@engram/proto/dist/gen/engram/ingest/v1/ingest.d.ts')),
      `the ingest declarations come from the installed package: ${proto.join(', ')}`,
    );
    assert.deepEqual(
      proto.filter((f) => !f.startsWith(join(project, 'node_modules/@engram/proto/dist/'))),
      [],
      'nothing from the workspace',
    );
  });
});
