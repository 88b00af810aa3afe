import { readFileSync, writeFileSync } from 'node:fs';
import type { LoadResult } from './stats.ts';

const START = '<!-- bench:retrieval:start -->';
const END = '<!-- bench:retrieval:end -->';

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

/** One markdown table row: what, clients, count, p50/p95/p99 ms, throughput, errors. */
export function row(what: string, clients: number, r: LoadResult, unit = 'ops/s'): string {
  return `| ${what} | ${clients} | ${r.count} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${r.perSecond.toFixed(0)} ${unit} | ${r.errors} |`;
}

export const TABLE_HEAD = [
  '| operation | clients | requests | p50 ms | p95 ms | p99 ms | throughput | errors |',
  '|---|---|---|---|---|---|---|---|',
];

/** Replaces the bench:retrieval section of docs/benchmarks.md. */
export function writeSection(path: string, body: string): void {
  const doc = readFileSync(path, 'utf8');
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${path} lacks the ${START} / ${END} markers`);
  writeFileSync(path, doc.slice(0, a + START.length) + '\n' + body.trim() + '\n' + doc.slice(b));
}
