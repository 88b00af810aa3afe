// Validates the round-5 sealed set and prints counts only (never item text).
// Usage: node libs/security-rules/eval/engram-r5-sealed/check-attacks.mjs
// The checks every set shares are in ../check-set.mjs; this set adds: ids in sequence, no field beyond
// the set's own, and every minimal pair names one attack (once) with the same carrier and language and
// a different text. It also counts which pairs had their instruction removed and which replaced.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carrierFields, checkSet, finish, out } from '../check-set.mjs';

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
const HARMS = ['access', 'money', 'device', 'deletion', 'settings', 'exfiltration', 'other'];
const ADDRESSING = ['implicit', 'explicit', 'disguised'];
const FIELDS = [
  'id',
  'text',
  'carrier',
  'harm',
  'target',
  'position',
  'addressing',
  'lang',
  'memory_type',
  'trust_level',
  'channel',
  'label',
];
const { rows, problems } = checkSet({
  dir: path.dirname(fileURLToPath(import.meta.url)),
  files: {
    attacks: {
      name: 'indirect-injections.sealed.jsonl',
      prefix: 'r5i',
      label: 1,
      min: 300,
      fields: carrierFields(LANGS, true),
    },
    pairs: {
      name: 'hard-negatives.pairs.sealed.jsonl',
      prefix: 'r5n',
      label: 0,
      min: 50,
      fields: carrierFields(LANGS, false),
      check: (r, problem) => {
        if (typeof r.pair_of !== 'string' || !/^r5i-\d{4}$/.test(r.pair_of)) problem('bad pair_of');
      },
    },
  },
});
const a = rows.attacks;
const n = rows.pairs;
const byId = new Map(a.map((r) => [r.id, r]));
const inSequence = (list, prefix, file) =>
  list.forEach((r, i) => {
    if (r.id !== `${prefix}-${String(i + 1).padStart(4, '0')}`)
      problems.push(`${file}:${i + 1}: id out of sequence`);
  });
inSequence(a, 'r5i', 'attacks');
inSequence(n, 'r5n', 'pairs');
const sameKeys = (r, keys) => Object.keys(r).sort().join(',') === [...keys].sort().join(',');
for (const r of a) if (!sameKeys(r, FIELDS)) problems.push(`${r.id}: unexpected or missing fields`);
for (const r of n)
  if (!sameKeys(r, [...FIELDS, 'pair_of'])) problems.push(`${r.id}: unexpected or missing fields`);
const paired = new Set();
for (const r of n) {
  const attack = byId.get(r.pair_of);
  if (!attack) {
    problems.push(`${r.id}: pair_of names no attack`);
    continue;
  }
  if (paired.has(r.pair_of)) problems.push(`${r.id}: attack paired twice`);
  paired.add(r.pair_of);
  if (attack.carrier !== r.carrier || attack.lang !== r.lang)
    problems.push(`${r.id}: carrier or lang differs`);
  if (attack.text === r.text) problems.push(`${r.id}: same text as its attack`);
}

const tally = (list, f) => {
  const o = {};
  for (const r of list) {
    const k = typeof f === 'function' ? f(r) : r[f];
    o[k] = (o[k] || 0) + 1;
  }
  return Object.entries(o)
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
};
const lengths = (list) => {
  const l = list.map((r) => r.text.length).sort((x, y) => x - y);
  const m = l.length >> 1;
  const median = l.length % 2 ? l[m] : (l[m - 1] + l[m]) / 2;
  const over = l.filter((x) => x > 600).length;
  return `${l[0]} to ${l[l.length - 1]} characters, median ${median}; ${over} over 600`;
};
// A pair is 'removed' when its text is its attack's text with one span cut out (at most whitespace left
// in its place), 'replaced' otherwise.
const kind = (r) => {
  const x = byId.get(r.pair_of)?.text ?? '';
  const y = r.text;
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  let s = 0;
  while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
  return y.slice(p, y.length - s).trim() === '' ? 'removed' : 'replaced';
};
const ofAttack = (f) => (r) => byId.get(r.pair_of)?.[f];
const cell = (h, d) => a.filter((r) => r.harm === h && r.addressing === d).length;
const harmByAddressing = HARMS.map((h) => `${h} ${ADDRESSING.map((d) => cell(h, d)).join('/')}`);

out(`attacks ${a.length}; minimal-pair negatives ${n.length}`);
for (const f of ['harm', 'addressing', 'target', 'position', 'lang', 'carrier'])
  out(`attacks by ${f}: ${tally(a, f)}`);
out(`attacks non-English: ${a.filter((r) => r.lang !== 'en').length}`);
out(`attacks harm x addressing (implicit/explicit/disguised): ${harmByAddressing.join(', ')}`);
out(
  `attacks with zero-width spaces: ${a.filter((r) => r.text.includes('\u200B')).length}; ` +
    `with Cyrillic homoglyphs: ${a.filter((r) => /[\u0400-\u04FF]/.test(r.text)).length}`,
);
out(`attack length: ${lengths(a)}`);
out(`pairs by kind: ${tally(n, kind)}`);
out(`pairs by carrier: ${tally(n, 'carrier')}`);
out(`pairs by lang: ${tally(n, 'lang')}`);
out(`pairs by harm of the attack: ${tally(n, ofAttack('harm'))}`);
out(`pairs by addressing of the attack: ${tally(n, ofAttack('addressing'))}`);
out(`pair length: ${lengths(n)}`);
finish(problems, 'all checks passed');
