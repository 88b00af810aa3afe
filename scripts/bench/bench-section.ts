import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@engram/testing';

/** Replaces the text between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in docs/benchmarks.md. */
export function writeBenchSection(name: string, body: string): void {
  const path = join(REPO_ROOT, 'docs/benchmarks.md');
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const doc = readFileSync(path, 'utf8');
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error(`docs/benchmarks.md lacks the ${start} / ${end} markers`);
  writeFileSync(path, doc.slice(0, a + start.length) + '\n' + body.trim() + '\n' + doc.slice(b));
}
