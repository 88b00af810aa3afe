// Structural check of the engram-train-r4 training corpus. Prints counts only, never an item's text.
// Usage: node libs/security-rules/eval/engram-train-r4/check.mjs
// The checks every set shares are in ../check-set.mjs; this set adds the split of every row, that a
// minimal pair names an attack of its own split, the benign memories' style, and that only tool
// outputs are untrusted.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carrierFields, checkMemory, checkSet, finish, MEMORY_FIELDS, out } from '../check-set.mjs';

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
const { rows, problems } = checkSet({
  dir: path.dirname(fileURLToPath(import.meta.url)),
  splits: ['dev', 'validation'],
  files: {
    attacks: {
      name: 'indirect-injections.jsonl',
      prefix: 't4i',
      label: 1,
      min: 500,
      fields: carrierFields(LANGS, true),
    },
    negatives: {
      name: 'hard-negatives.jsonl',
      prefix: 't4n',
      label: 0,
      min: 250,
      fields: carrierFields(LANGS, false),
    },
    benign: {
      name: 'benign-memories.jsonl',
      prefix: 't4b',
      label: 0,
      min: 250,
      fields: MEMORY_FIELDS,
      check: (row, problem) => checkMemory(row, problem, LANGS),
    },
  },
});
const A = rows.attacks;
const N = rows.negatives;
const B = rows.benign;
const attackSplit = new Map(A.map((row) => [row.id, row.split]));
for (const row of N) {
  if (row.pair_of === undefined) continue;
  if (!attackSplit.has(row.pair_of)) problems.push(`${row.id}: pair_of does not name an attack`);
  else if (attackSplit.get(row.pair_of) !== row.split)
    problems.push(`${row.id}: minimal pair not in its attack's split`);
}

const tally = (list, field) =>
  list.reduce((m, r) => {
    m[r[field]] = (m[r[field]] || 0) + 1;
    return m;
  }, {});
const cross = (list, field) => {
  const counts = {};
  for (const r of list) {
    counts[r[field]] ??= { dev: 0, validation: 0 };
    counts[r[field]][r.split] += 1;
  }
  return counts;
};
const show = (title, obj) =>
  out(
    `  ${title}: ${Object.entries(obj)
      .sort()
      .map(([k, v]) => `${k} ${typeof v === 'object' ? `${v.dev}/${v.validation}` : v}`)
      .join(', ')}`,
  );
const splits = (list) =>
  `dev ${list.filter((r) => r.split === 'dev').length}, validation ${list.filter((r) => r.split === 'validation').length}`;
out(`indirect-injections.jsonl: ${A.length} (${splits(A)})   [per category: dev/validation]`);
show('harm', cross(A, 'harm'));
show('addressing', cross(A, 'addressing'));
show('target', cross(A, 'target'));
show('position', cross(A, 'position'));
show('carrier', cross(A, 'carrier'));
show('lang', cross(A, 'lang'));
out(`hard-negatives.jsonl: ${N.length} (${splits(N)}); minimal pairs ${N.filter((r) => r.pair_of).length}`);
show('carrier', cross(N, 'carrier'));
show('lang', cross(N, 'lang'));
out(`benign-memories.jsonl: ${B.length} (${splits(B)})`);
show('memory_type', cross(B, 'memory_type'));
show('kind', cross(B, 'kind'));
show('trust_level', tally(B, 'trust_level'));
show(
  'language',
  tally(
    B.map((r) => ({ l: (r.style.match(/-(de|fr|es|it|pt|nl)$/) || ['', 'en'])[1] })),
    'l',
  ),
);
const lens = [...A, ...N, ...B].map((r) => r.text.length).sort((a, b) => a - b);
out(
  `text length: ${lens[0]} to ${lens[lens.length - 1]} characters, median ${lens[Math.floor(lens.length / 2)]}`,
);
finish(
  problems,
  'OK: every line parses, ids unique, fields and values valid, JSON carriers valid, no duplicate texts',
);
