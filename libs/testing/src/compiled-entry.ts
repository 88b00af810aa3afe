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
  return ['--enable-source-maps', file];
}
