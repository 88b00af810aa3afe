/**
 * `make bench-security`: confusion matrices of stage 3 per corpus (dev and held-out parts), stage 2
 * findings on the benign corpora, latency per item of stages 1-3 together and each alone, a 2 KB
 * item, and 50,000-character adversarial inputs. Prints the report and writes it into the
 * bench:security section of docs/benchmarks.md. `--errors [dev|holdout]` prints misses and false
 * positives instead (a development aid).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  scanInjection,
  scanSensitive,
  scanWrite,
  validateWrite,
  DEFAULT_WRITE_LIMITS,
} from '@engram/security-rules';
import { benignMemories, bipia, deepset, engramIndirect, type Corpus } from './security/corpora.ts';
import { bySplit, confusion, fpr, precision, recall, type Confusion } from './security/confusion.ts';
import { printErrors } from './security/errors-report.ts';
import { adversarialInputs, measure, measureBest, type Latency } from './security/latency.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dataDir = process.env.INJECTION_DEV_DATA ?? join(root, '..', 'shared', 'data', 'injection-dev');
const benchData = join(root, 'libs', 'security-rules', 'bench-data');

const corpora: Corpus[] = [
  deepset(dataDir),
  bipia(dataDir),
  benignMemories(benchData),
  engramIndirect(benchData),
];

const args = process.argv.slice(2);
if (args[0] === '--errors') {
  printErrors(corpora, args[1] === 'holdout' ? 'holdout' : 'dev');
  process.exit(0);
}

const detect = (text: string) => scanInjection(text).length > 0;
const pct = (x: number) => (Number.isNaN(x) ? '–' : (x * 100).toFixed(1) + '%');
const us = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

const lines: string[] = [];
const out = (s = '') => lines.push(s);

out(
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${process.platform}; ` +
    `load average ${loadavg()[0]?.toFixed(1)} when the run started (other work on the machine inflates the tails).`,
);
out(
  `Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Command: \`make bench-security\` (scripts/bench/security.ts).`,
);
out();
out('### Stage 3 (prompt injection): confusion matrix per corpus');
out();
out(
  'dev = the part the rules were written against; holdout = not used to write rules: deepset: its test split; BIPIA:',
);
out(
  'attack strings 1 and 3 of each category, on odd e-mails; Engram benign: benign-holdout.txt (examined once mid-way,',
);
out(
  'which led to narrowing six over-broad rules), benign-holdout-2.txt and benign-holdout-3.txt (written afterwards,',
);
out(
  'never tuned on); engram indirect: indirect-holdout.txt, injections in benign carriers written before tuning, all held out.',
);
out();
out('| corpus | part | TP | FN | FP | TN | recall | FPR | precision |');
out('|---|---|---:|---:|---:|---:|---:|---:|---:|');
const totals: Record<string, Confusion> = {};
for (const corpus of corpora) {
  for (const split of ['dev', 'holdout', 'all'] as const) {
    const c = confusion(bySplit(corpus, split), detect);
    const t = (totals[split] ??= { tp: 0, fn: 0, fp: 0, tn: 0 });
    t.tp += c.tp;
    t.fn += c.fn;
    t.fp += c.fp;
    t.tn += c.tn;
    out(
      `| ${corpus.name} | ${split} | ${c.tp} | ${c.fn} | ${c.fp} | ${c.tn} | ${pct(recall(c))} | ${pct(fpr(c))} | ${pct(precision(c))} |`,
    );
  }
}
for (const split of ['dev', 'holdout', 'all'] as const) {
  const c = totals[split]!;
  out(
    `| **all corpora** | ${split} | ${c.tp} | ${c.fn} | ${c.fp} | ${c.tn} | ${pct(recall(c))} | ${pct(fpr(c))} | ${pct(precision(c))} |`,
  );
}
out();

// Stage 2 on negatives: what the sensitive-data rules find in benign text (all parts).
out('### Stage 2 (sensitive data) on the benign items');
out();
const negatives = corpora.flatMap((c) => c.items.filter((i) => !i.injection).map((i) => i.text));
const byType = new Map<string, number>();
for (const text of negatives)
  for (const f of scanSensitive(text)) byType.set(f.type, (byType.get(f.type) ?? 0) + 1);
out(
  `${negatives.length} benign items; findings by type: ${[...byType].map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}.`,
);
out(
  '(The BIPIA e-mails hold real sender addresses, so e-mail findings there are true positives of the pii category.)',
);
out();

// Latency.
const allTexts = corpora.flatMap((c) => c.items.map((i) => i.text));
const write = (text: string) => ({
  content: text,
  agent_id: 'bench',
  memory_type: 'standard',
  metadata: { source: 'bench', tags: ['x'] },
});
const writes = allTexts.map(write);
const stage1 = (w: ReturnType<typeof write>) => validateWrite(w, DEFAULT_WRITE_LIMITS);
const stage2 = (w: ReturnType<typeof write>) => scanWrite(w, { stage2: true, stage3: false });
const stage3 = (w: ReturnType<typeof write>) => scanWrite(w, { stage2: false, stage3: true });
const stages123 = (w: ReturnType<typeof write>) => {
  validateWrite(w, DEFAULT_WRITE_LIMITS);
  return scanWrite(w);
};
let twoKb = '';
const benignTexts = corpora[2]!.items.map((i) => i.text);
for (let i = 0; twoKb.length < 2048; i++) twoKb += benignTexts[i % benignTexts.length] + ' ';
twoKb = twoKb.slice(0, 2048);
const twoKbWrites = Array.from({ length: 2000 }, () => write(twoKb));

const rows: [string, Latency, Latency][] = [
  ['stages 1-3', measureBest(writes, stages123), measureBest(twoKbWrites, stages123, 1)],
  ['stage 1 (validation)', measureBest(writes, stage1), measureBest(twoKbWrites, stage1, 1)],
  ['stage 2 (sensitive data)', measureBest(writes, stage2), measureBest(twoKbWrites, stage2, 1)],
  ['stage 3 (injection)', measureBest(writes, stage3), measureBest(twoKbWrites, stage3, 1)],
];
out('### Latency per item (µs), in process, one call per sample');
out();
const meanLen = Math.round(allTexts.reduce((a, t) => a + t.length, 0) / allTexts.length);
out(
  `Corpus items: ${allTexts.length} texts (mean ${meanLen} characters) x 5 rounds. 2 KB item: 2,048 characters of benign memory text, 2,000 runs. Each measurement is repeated 3 times and the repeat with the lowest median is reported (the machine is shared).`,
);
out();
out('| stages | corpus median | corpus p99 | 2 KB median | 2 KB p99 |');
out('|---|---:|---:|---:|---:|');
for (const [name, c, k] of rows)
  out(`| ${name} | ${us(c.medianUs)} | ${us(c.p99Us)} | ${us(k.medianUs)} | ${us(k.p99Us)} |`);
out();
out('### 50,000-character adversarial inputs (stages 1-3, worst of 5 runs)');
out();
out('| input | ms |');
out('|---|---:|');
for (const a of adversarialInputs()) {
  const l = measure([write(a.text)], stages123, 5);
  out(`| ${a.name} | ${(l.maxUs / 1000).toFixed(2)} |`);
}

const report = lines.join('\n');
console.log(report);
const docPath = join(root, 'docs', 'benchmarks.md');
const doc = readFileSync(docPath, 'utf8');
const start = '<!-- bench:security:start -->';
const end = '<!-- bench:security:end -->';
const a = doc.indexOf(start);
const b = doc.indexOf(end);
if (a < 0 || b < a) throw new Error('docs/benchmarks.md has no bench:security markers');
writeFileSync(docPath, doc.slice(0, a + start.length) + '\n' + report + '\n' + doc.slice(b));
console.log(`\nwritten to ${docPath}`);
