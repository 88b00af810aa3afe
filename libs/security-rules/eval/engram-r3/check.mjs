#!/usr/bin/env node
// Structural check of the engram-r3 sealed set. It prints counts only, never an item's text,
// so running it does not expose the held-out data. Exit code 1 on any problem.
//   node libs/security-rules/eval/engram-r3/check.mjs
// The checks every set shares are in ../check-set.mjs.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { carrierFields, checkSet, finish, MEMORY_FIELDS, out } from '../check-set.mjs';

const LANGS = ['en', 'de', 'fr', 'es', 'it'];
const files = {
  attacks: {
    name: 'indirect-injections.sealed.jsonl',
    prefix: 'r3i',
    label: 1,
    min: 230,
    fields: carrierFields(LANGS, true),
  },
  negatives: {
    name: 'hard-negatives.sealed.jsonl',
    prefix: 'r3n',
    label: 0,
    min: 110,
    fields: carrierFields(LANGS, false),
  },
  benign: {
    name: 'benign-memories.sealed.jsonl',
    prefix: 'r3b',
    label: 0,
    min: 160,
    fields: MEMORY_FIELDS,
    check: (row, problem) => {
      if (typeof row.style !== 'string') problem('style missing');
    },
  },
};

const { rows, problems } = checkSet({ dir: dirname(fileURLToPath(import.meta.url)), files });

// Per file: rows, text lengths, and the count of every value of every checked field (and the style
// of benign memories), in the order the values first occur.
const report = {};
for (const [key, spec] of Object.entries(files)) {
  const counts = {};
  for (const row of rows[key]) {
    for (const field of [...Object.keys(spec.fields), ...(key === 'benign' ? ['style'] : [])]) {
      counts[field] ??= {};
      counts[field][row[field]] = (counts[field][row[field]] ?? 0) + 1;
    }
  }
  const lengths = rows[key]
    .filter((r) => typeof r.text === 'string' && r.text.trim().length >= 20)
    .map((r) => r.text.length)
    .sort((a, b) => a - b);
  report[spec.name] = {
    rows: rows[key].length,
    length: {
      min: lengths[0],
      median: lengths[Math.floor(lengths.length / 2)],
      max: lengths[lengths.length - 1],
    },
    ...counts,
  };
}
out(JSON.stringify(report, null, 2));
finish(problems, 'ok: every line parses, ids unique, required fields present, JSON carriers valid');
