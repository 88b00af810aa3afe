// The checks of one sealed round's four files (rounds 5 on), shared by each round's check.mjs, which
// prints counts only (never item text). Two independent writers: the attacks and the minimal-pair
// negatives (writer A), the standalone hard negatives and the benign memories (writer B). A file that
// is not there yet is reported as missing and skipped; with --require-all a missing file is a problem
// (exit 1). Beyond ./check-set.mjs: exact row counts and sequential ids per file (<round>i-0001…0300,
// <round>n-0001…0050 pairs, <round>n-0101…0200 standalone, <round>b-0001…0220); every pair row names
// an existing attack in `pair_of` (with strictPairs, one with the same carrier and language), with a
// different text, and no attack is paired twice; the benign memories' style, that only tool outputs
// are untrusted, and that no benign memory holds an e-mail address, an IP address outside the
// documentation ranges, a card-like digit run, an IBAN-like string or a key-like token.
import fs from 'node:fs';
import path from 'node:path';
import { carrierFields, checkMemory, checkSet, finish, MEMORY_FIELDS, out } from './check-set.mjs';

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];

/** Checks the round `round` (e.g. "r7") in `dir`; `argv` may hold --require-all. */
export function checkSealedRound({ round, dir, argv, strictPairs = true }) {
  const requireAll = argv.includes('--require-all');
  const DOC_IP = /^(192\.0\.2|198\.51\.100|203\.0\.113)\.\d{1,3}$/;
  const benignCheck = (r, problem) => {
    checkMemory(r, problem, LANGS);
    const text = String(r.text);
    if (/[\w.+-]+@[\w-]+\.[\w.]+/.test(text)) problem('e-mail address in benign memory');
    for (const ip of text.match(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g) || [])
      if (!DOC_IP.test(ip)) problem('IP address outside the documentation ranges in benign memory');
    if (/\b(?:\d[ -]?){13,19}\b/.test(text)) problem('card-like digit run in benign memory');
    if (/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,}/.test(text)) problem('IBAN-like string in benign memory');
    if (/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}\b/.test(text))
      problem('key-like token in benign memory');
  };

  const SPECS = {
    attacks: {
      name: 'indirect-injections.sealed.jsonl',
      prefix: `${round}i`,
      label: 1,
      min: 300,
      exact: 300,
      first: 1,
      fields: carrierFields(LANGS, true),
    },
    pairs: {
      name: 'hard-negatives.pairs.sealed.jsonl',
      prefix: `${round}n`,
      label: 0,
      min: 50,
      exact: 50,
      first: 1,
      fields: carrierFields(LANGS, false),
      check: (r, problem) => {
        if (typeof r.pair_of !== 'string' || !new RegExp(`^${round}i-\\d{4}$`).test(r.pair_of))
          problem(`pair_of missing or not an ${round}i id`);
      },
    },
    negatives: {
      name: 'hard-negatives.sealed.jsonl',
      prefix: `${round}n`,
      label: 0,
      min: 100,
      exact: 100,
      first: 101,
      fields: carrierFields(LANGS, false),
      check: (r, problem) => {
        if ('pair_of' in r) problem('standalone negative has a pair_of field');
      },
    },
    benign: {
      name: 'benign-memories.sealed.jsonl',
      prefix: `${round}b`,
      label: 0,
      min: 220,
      exact: 220,
      first: 1,
      fields: MEMORY_FIELDS,
      check: benignCheck,
    },
  };

  const missing = Object.entries(SPECS)
    .filter(([, s]) => !fs.existsSync(path.join(dir, s.name)))
    .map(([k]) => k);
  const present = Object.fromEntries(Object.entries(SPECS).filter(([k]) => !missing.includes(k)));
  const { rows, problems } = checkSet({ dir, files: present });
  if (requireAll) for (const k of missing) problems.push(`${SPECS[k].name}: missing`);

  // Exact counts and sequential ids, in file order.
  for (const [k, s] of Object.entries(present)) {
    const list = rows[k];
    if (list.length !== s.exact) problems.push(`${s.name}: ${list.length} rows, need exactly ${s.exact}`);
    list.forEach((r, i) => {
      const want = `${s.prefix}-${String(s.first + i).padStart(4, '0')}`;
      if (r.id !== want) problems.push(`${s.name}:${i + 1} ${r.id}: id out of sequence (expected ${want})`);
    });
  }

  // Pairs name existing attacks, each at most once.
  let pairCarrierSame = 0,
    pairLangSame = 0;
  if (rows.pairs) {
    const attacks = new Map((rows.attacks || []).map((r) => [r.id, r]));
    const seen = new Set();
    rows.pairs.forEach((r, i) => {
      const where = `${SPECS.pairs.name}:${i + 1} ${r.id}`;
      if (seen.has(r.pair_of)) problems.push(`${where}: attack paired twice`);
      seen.add(r.pair_of);
      const a = attacks.get(r.pair_of);
      if (rows.attacks && !a) problems.push(`${where}: pair_of names no attack in the set`);
      if (a && a.text === r.text) problems.push(`${where}: same text as its attack`);
      if (a && a.carrier === r.carrier) pairCarrierSame++;
      else if (a && strictPairs) problems.push(`${where}: carrier differs from its attack`);
      if (a && a.lang === r.lang) pairLangSame++;
      else if (a && strictPairs) problems.push(`${where}: language differs from its attack`);
    });
  }

  const tally = (list, f) => {
    const o = {};
    for (const r of list) {
      const v = typeof f === 'function' ? f(r) : r[f];
      o[v] = (o[v] || 0) + 1;
    }
    return Object.entries(o)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  };
  const lengths = (list) => {
    const l = list.map((r) => String(r.text).length).sort((a, b) => a - b);
    if (l.length === 0) return 'none';
    const over = l.filter((x) => x > 600).length;
    return `${l[0]}–${l[l.length - 1]} chars, median ${l[Math.floor(l.length / 2)]}, over 600: ${over}`;
  };
  const suffix = (s) => (String(s).match(/-(de|fr|es|it|pt|nl)$/) || [null, 'en'])[1];

  out(
    `files: ${Object.entries(SPECS)
      .map(([k]) => `${k} ${missing.includes(k) ? 'MISSING' : rows[k].length}`)
      .join('; ')}`,
  );
  if (rows.attacks) {
    const a = rows.attacks;
    for (const f of ['harm', 'addressing', 'target', 'position', 'lang', 'carrier'])
      out(`attacks by ${f}: ${tally(a, f)}`);
    out(`attacks non-English: ${a.filter((r) => r.lang !== 'en').length}`);
    out(`attack length: ${lengths(a)}`);
  }
  if (rows.pairs) {
    const p = rows.pairs;
    for (const f of ['carrier', 'lang']) out(`pair negatives by ${f}: ${tally(p, f)}`);
    if (rows.attacks)
      out(`pair negatives with the attack's carrier: ${pairCarrierSame}, language: ${pairLangSame}`);
    out(`pair negative length: ${lengths(p)}`);
  }
  if (rows.negatives) {
    const n = rows.negatives;
    for (const f of ['carrier', 'lang']) out(`standalone negatives by ${f}: ${tally(n, f)}`);
    out(`standalone negatives non-English: ${n.filter((r) => r.lang !== 'en').length}`);
    out(`standalone negative length: ${lengths(n)}`);
  }
  if (rows.benign) {
    const b = rows.benign;
    for (const f of ['memory_type', 'kind', 'trust_level', 'channel']) out(`benign by ${f}: ${tally(b, f)}`);
    out(`benign by trust_level/channel: ${tally(b, (r) => `${r.trust_level}/${r.channel}`)}`);
    const tools = b.filter((r) => r.kind === 'tool_output');
    out(`benign tool outputs by memory_type: ${tally(tools, 'memory_type')}`);
    out(`benign by style: ${tally(b, (r) => String(r.style).replace(/-(de|fr|es|it|pt|nl)$/, ''))}`);
    out(`benign by language: ${tally(b, (r) => suffix(r.style))}`);
    out(`benign length: ${lengths(b)}`);
  }
  if (missing.length > 0)
    out(
      `missing (not checked${requireAll ? ', counted as problems' : ''}): ${missing
        .map((k) => SPECS[k].name)
        .join(', ')}`,
    );
  finish(problems, missing.length > 0 ? 'all checks passed on the files present' : 'all checks passed');
}
