// Validates the round-4 sealed set and prints counts only (never item text).
// Usage: node libs/security-rules/eval/engram-r4-sealed/check.mjs
// The checks every set shares are in ../check-set.mjs; this set adds the benign memories' style,
// that only tool outputs are untrusted, and that no benign memory holds an e-mail address.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carrierFields, checkMemory, checkSet, finish, MEMORY_FIELDS, out } from '../check-set.mjs';

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
const { rows, problems } = checkSet({
  dir: path.dirname(fileURLToPath(import.meta.url)),
  files: {
    attacks: {
      name: 'indirect-injections.sealed.jsonl',
      prefix: 'r4i',
      label: 1,
      min: 250,
      fields: carrierFields(LANGS, true),
    },
    negatives: {
      name: 'hard-negatives.sealed.jsonl',
      prefix: 'r4n',
      label: 0,
      min: 130,
      fields: carrierFields(LANGS, false),
    },
    benign: {
      name: 'benign-memories.sealed.jsonl',
      prefix: 'r4b',
      label: 0,
      min: 170,
      fields: MEMORY_FIELDS,
      check: (r, problem) => {
        checkMemory(r, problem, LANGS);
        if (/[\w.+-]+@[\w-]+\.[\w.]+/.test(r.text)) problem('e-mail address in benign memory');
      },
    },
  },
});

const tally = (list, f) => {
  const o = {};
  for (const r of list) o[r[f]] = (o[r[f]] || 0) + 1;
  return Object.entries(o)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
};
const lengths = (list) => {
  const l = list.map((r) => r.text.length).sort((a, b) => a - b);
  return `${l[0]}–${l[l.length - 1]} chars, median ${l[Math.floor(l.length / 2)]}`;
};
const a = rows.attacks,
  n = rows.negatives,
  b = rows.benign;
out(`attacks ${a.length}; hard negatives ${n.length}; benign memories ${b.length}`);
for (const f of ['harm', 'addressing', 'target', 'position', 'lang', 'carrier'])
  out(`attacks by ${f}: ${tally(a, f)}`);
out(`attacks non-English: ${a.filter((r) => r.lang !== 'en').length}`);
out(`attacks with zero-width spaces: ${a.filter((r) => r.text.includes('\u200B')).length}`);
out(`attack length: ${lengths(a)}`);
for (const f of ['carrier', 'lang']) out(`negatives by ${f}: ${tally(n, f)}`);
out(`negative length: ${lengths(n)}`);
for (const f of ['memory_type', 'kind', 'trust_level', 'channel']) out(`benign by ${f}: ${tally(b, f)}`);
out(
  `benign by style: ${tally(
    b.map((r) => ({ s: r.style.replace(/-(de|fr|es|it|pt|nl)$/, '') })),
    's',
  )}`,
);
out(
  `benign by language: ${tally(
    b.map((r) => ({ l: (r.style.match(/-(de|fr|es|it|pt|nl)$/) || [null, 'en'])[1] })),
    'l',
  )}`,
);
out(`benign length: ${lengths(b)}`);
finish(problems, 'all checks passed');
