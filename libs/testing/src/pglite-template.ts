import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@engram/db';

let template: Promise<string> | undefined;

/**
 * An empty PGlite cluster, made once per test process: PGlite's initdb takes 2.5 to 3.5 s on this
 * kind of machine, copying its result about 0.2 s, and the suite starts PGlite some eighty times.
 * Nothing Engram writes is in it (no migration, no key, no pinned embedding space): every test still
 * runs every migration and the whole bootstrap on its copy.
 */
function emptyCluster(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-pglite-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ dataDir: dir });
    await db.close();
    return dir;
  })();
  return template;
}

/** Fills `dir` (absent or empty) with a fresh, empty PGlite cluster, as a first start would. */
export async function freshPgliteDir(dir: string): Promise<string> {
  cpSync(await emptyCluster(), dir, { recursive: true });
  return dir;
}
