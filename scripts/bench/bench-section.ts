import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@engram/testing';

/** Replaces the text between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in `doc` (docs/benchmarks.md). */
export function writeBenchSection(name: string, body: string, doc = 'docs/benchmarks.md'): void {
  const path = join(REPO_ROOT, doc);
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const text = readFileSync(path, 'utf8');
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${doc} lacks the ${start} / ${end} markers`);
  writeFileSync(path, text.slice(0, a + start.length) + '\n' + body.trim() + '\n' + text.slice(b));
}
