import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (libs/testing/src -> ../../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Node arguments that run a package's compiled entry point, as production does (`make build` emits
 * it): e.g. compiledEntry('services/gateway', 'main') -> ['--enable-source-maps', '<root>/services/gateway/dist/src/main.js'].
 * Tests run processes from the build rather than through tsx so that they exercise what ships; a
 * missing build is a clear error, not a confusing module-not-found from the child.
 */
export function compiledEntry(pkg: string, entry: string): string[] {
  const file = join(REPO_ROOT, pkg, 'dist', 'src', `${entry}.js`);
  if (!existsSync(file)) throw new Error(`${file} does not exist: run \`make build\` first`);
  return [...NODE_FLAGS, file];
}

/**
 * The flags every Engram process runs with, in tests as in deploy/image/entrypoint, deploy/local/Procfile
 * and scripts/run-distributed (test/reliability/start-flags.test.ts holds them equal). The young
 * generation is bounded at 8 MiB per semi-space: V8 otherwise grows it to 16 MiB under load and
 * keeps it, 16 MiB more resident memory per process that a soak saw as a rising floor
 * (docs/decisions.md).
 */
export const NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=8'] as const;

/**
 * The environment every Engram process runs with: glibc's malloc kept to two arenas (its default
 * is eight per core, each holding on to memory freed into it by the threads that used it).
 */
export const NODE_ENV = { MALLOC_ARENA_MAX: '2' } as const;
