/**
 * `make bench-security`: stage 3 (rules, the learned signal, both) per corpus and split, the rule
 * families that fired, what the default content policy does with the benign corpus at each item's
 * default scope, how often stage 4 is asked with escalation `uncertain` and what it adds, and the
 * latency per stage. Prints the report and writes it into the bench:security section of
 * docs/benchmarks.md.
 *
 * Sealed splits are read and reported as aggregate counts only; nothing here prints a sealed item.
 * `--errors dev|validation` prints the misses and false positives of one split instead (a
 * development aid; validation only to explain a regression). It refuses sealed. `--without-sealed`
 * leaves the sealed splits out (see below).
 *
 * INJECTION_DEV_DATA: the directory of the public corpora (deepset, BIPIA); see corpora.ts.
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ChatCompletionsClassifier,
  DEFAULT_WRITE_LIMITS,
  injectionModel,
  scanWrite,
  scanWriteInContext,
  scoreWithModel,
  validateWrite,
} from '@engram/security-rules';
import { ChatCompletionsServer, verdict } from '../../libs/security-rules/test/stage4/chat-server.ts';
import { writeBenchSection } from './bench-section.ts';
import {
  bipia,
  deepset,
  engramBenign,
  engramDirect,
  engramHardNegatives,
  engramIndirect,
  olderBenchData,
  ROUND_4_TRAIN,
  RETIRED_ROUNDS,
  ROUND_19_SEALED,
  sealedRound,
  SPLITS,
  type Corpus,
  type EngramSplit,
  type Item,
  type Split,
} from './security/corpora.ts';
import {
  DETECTORS,
  escalation,
  fired,
  policyOutcome,
  verdictOf,
  type PolicyOutcome,
  type Verdict,
} from './security/evaluate.ts';
import { adversarialInputs, measure, measureBest, type Latency } from './security/latency.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The public corpora are not part of the repository: read only when INJECTION_DEV_DATA names them. */
const dataDir = process.env.INJECTION_DEV_DATA;
const evalDir = join(root, 'libs', 'security-rules', 'eval');
const benchData = join(root, 'libs', 'security-rules', 'bench-data');

const args = process.argv.slice(2);
/**
 * `--without-sealed`: a development run that leaves the sealed splits out entirely (and does not
 * write docs/benchmarks.md), so tuning never sees even their aggregates.
 */
const withoutSealed = args.includes('--without-sealed');
const splits = withoutSealed ? (['dev', 'validation'] as const) : undefined;
const direct = engramDirect(evalDir, splits);
const corpora: Corpus[] = [
  engramBenign(evalDir, splits),
  engramIndirect(evalDir, splits),
  engramHardNegatives(evalDir, splits),
  ...(direct ? [direct] : []),
  // Round 4's training corpus: dev and validation only (its rows name their split).
  engramBenign(evalDir, splits, ROUND_4_TRAIN),
  engramIndirect(evalDir, splits, ROUND_4_TRAIN),
  engramHardNegatives(evalDir, splits, ROUND_4_TRAIN),
  ...(dataDir !== undefined && existsSync(join(dataDir, 'deepset-prompt-injections.jsonl'))
    ? [deepset(dataDir), bipia(dataDir)]
    : []),
  olderBenchData(benchData),
  // The sealed sets spent in rounds 3 to 15, retired into dev or validation (RETIRED_ROUNDS).
  ...RETIRED_ROUNDS.flatMap((round) => [
    engramBenign(evalDir, splits, round),
    engramIndirect(evalDir, splits, round),
    engramHardNegatives(evalDir, splits, round),
  ]),
];

/**
 * Round 19's sealed set (engram-r19-sealed): read only here, only when every file is there and the
 * run is not `--without-sealed`, and reported as aggregates only (its own section below).
 */
const sealedR = withoutSealed ? undefined : sealedRound(evalDir, ROUND_19_SEALED);
const sealed = sealedR && 'attacks' in sealedR ? sealedR : undefined;
if (sealed) corpora.push(sealed.benign, sealed.attacks, sealed.negatives);

if (args[0] === '--errors') {
  const split = args[1];
  if (split !== 'dev' && split !== 'validation') {
    console.error('--errors takes dev or validation (sealed items are never printed)');
    process.exit(2);
  }
  for (const corpus of corpora) {
    console.log(`\n## ${corpus.name} [${split}]`);
    for (const item of corpus.items.filter((i) => i.split === split)) {
      const v = verdictOf(item);
      const hit = v.rules || v.model;
      if (hit === item.injection) continue;
      const tag = item.injection
        ? 'FN'
        : `FP ${[...v.families, ...(v.model ? ['learned_model'] : [])].join(',')}`;
      console.log(
        `  ${tag} [${v.profile} ${v.modelScore.toFixed(2)}]`,
        JSON.stringify(item.text.slice(0, 200)),
      );
    }
  }
  process.exit(0);
}

const pct = (n: number, d: number) => (d === 0 ? '–' : ((100 * n) / d).toFixed(1) + '%');
const us = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const lines: string[] = [];
const out = (s = '') => lines.push(s);
const model = injectionModel().data;

out(
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores, shared with other work), Node ${process.version}; ` +
    `load average ${loadavg()[0]?.toFixed(1)} when the run started. Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. ` +
    'Command: `make bench-security` (scripts/bench/security.ts).',
);
out();
out(
  `Learned signal: model ${model.id}; thresholds data ${model.thresholds.data}, memory ${model.thresholds.memory > 1 ? 'never alone' : model.thresholds.memory}, ` +
    `instructions ${model.thresholds.instructions > 1 ? 'never alone' : model.thresholds.instructions}; stage-4 band [${model.band.low}, ${model.band.high}).`,
);
out();

// ---- Stage 3 per corpus and split.
const verdicts = new Map<Item, Verdict>();
for (const c of corpora) for (const i of c.items) verdicts.set(i, verdictOf(i));

/** The names of the retired rounds read as `split`, for the report's prose. */
const retiredIn = (split: EngramSplit) =>
  RETIRED_ROUNDS.filter((r) => r.splits.includes(split))
    .map((r) => r.name)
    .join(', ');
out('### Stage 3 per corpus and split: rules alone, learned signal alone, both');
out();
out(
  'Each item is screened in its own context (trust level, memory type, channel: see the screening profiles in README.md). ' +
    'Recall over attacks, FPR over benign items. Splits: dev (rules and model written and trained on it), validation ' +
    '(thresholds chosen on it), sealed (scored here, never read), retired (read while the older rules were written; for the record). ' +
    `The engram-r<n> corpora are the sealed sets of earlier rounds, each scored once and then retired: ${retiredIn('dev')} are dev, ` +
    `${retiredIn('validation')} validation (writers the model is not trained on).`,
);
out();
out(
  '| corpus | split | attacks | benign | recall rules | recall model | recall both | FPR rules | FPR model | FPR both |',
);
out('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const c of corpora) {
  for (const split of SPLITS) {
    const items = c.items.filter((i) => i.split === split);
    if (items.length === 0) continue;
    const att = items.filter((i) => i.injection);
    const ben = items.filter((i) => !i.injection);
    const r = DETECTORS.map((d) => pct(att.filter((i) => fired(verdicts.get(i)!, d)).length, att.length));
    const f = DETECTORS.map((d) => pct(ben.filter((i) => fired(verdicts.get(i)!, d)).length, ben.length));
    out(`| ${c.name} | ${split} | ${att.length} | ${ben.length} | ${r.join(' | ')} | ${f.join(' | ')} |`);
  }
}
out();

// ---- Per rule family.
const FAMILIES = [
  'system_override',
  'role_manipulation',
  'data_exfiltration',
  'indirect_instruction',
  'fake_turn',
  'delimiter_attack',
];
out('### Which rule family fired (items), per corpus and split');
out();
out(
  'Attacks caught / benign items flagged by each rule family (an item can count under several), and by the learned signal (model).',
);
out();
out(`| corpus | split | label | ${FAMILIES.join(' | ')} | model |`);
out(`|---|---|---|${FAMILIES.map(() => '---:').join('|')}|---:|`);
for (const c of corpora) {
  for (const split of SPLITS) {
    for (const label of [true, false]) {
      const items = c.items.filter((i) => i.split === split && i.injection === label);
      if (items.length === 0) continue;
      const cells = FAMILIES.map((f) => items.filter((i) => verdicts.get(i)!.families.includes(f)).length);
      const m = items.filter((i) => verdicts.get(i)!.model).length;
      out(`| ${c.name} | ${split} | ${label ? 'attack' : 'benign'} | ${cells.join(' | ')} | ${m} |`);
    }
  }
}
out();

// ---- Sub-families of the Engram corpora (attack harm, direct family, benign kind).
out('### Engram corpora by sub-family (both detectors)');
out();
out('| corpus | sub-family | dev | validation | sealed |');
out('|---|---|---:|---:|---:|');
for (const c of corpora.filter((x) => x.engram)) {
  const families = [...new Set(c.items.map((i) => i.family ?? '-'))].sort();
  for (const fam of families) {
    const cell = (split: Split) => {
      const items = c.items.filter((i) => i.split === split && (i.family ?? '-') === fam);
      const hits = items.filter((i) => fired(verdicts.get(i)!, 'both')).length;
      return items.length === 0 ? '–' : `${hits}/${items.length}`;
    };
    out(`| ${c.name} | ${fam} | ${cell('dev')} | ${cell('validation')} | ${cell('sealed')} |`);
  }
}
out();
out('(Attacks: caught / all; benign: flagged / all.)');
out();

// ---- The default policy on the Engram benign corpus, at each item's default scope.
out('### The benign Engram memories under the default content policy, at each item default scope');
out();
out(
  'Refused = 422 (an injection finding where the type defaults to global scope, which CONTENT_POLICY_INJECTION_GLOBAL_SCOPE=reject refuses); ' +
    'flagged = stored with a flag (any category; injection in brackets). Targets on sealed: at most 0.5% refused, at most 2% flagged.',
);
out();
out('| corpus | split | items | refused | flagged (injection) |');
out('|---|---|---:|---:|---:|');
const benign = corpora.find((c) => c.name === 'engram-benign')!;
for (const corpus of corpora.filter((c) => c.engram && c.name.endsWith('-benign'))) {
  for (const split of ['dev', 'validation', 'sealed'] as const) {
    const items = corpus.items.filter((i) => i.split === split);
    if (items.length === 0) continue;
    let refused = 0;
    let flagged = 0;
    let flaggedInjection = 0;
    for (const i of items) {
      const o = await policyOutcome(i);
      if (o.refused) refused++;
      if (o.flagged) flagged++;
      if (o.flagged && o.injection) flaggedInjection++;
    }
    out(
      `| ${corpus.name} | ${split} | ${items.length} | ${refused} (${pct(refused, items.length)}) | ${flagged} (${pct(flagged, items.length)}; ${flaggedInjection}) |`,
    );
  }
}
out();

// ---- Round 19's sealed set: aggregates only.
out('### Round 19 sealed set (engram-r19-sealed): aggregates only');
out();
if (!sealedR) out('Left out (`--without-sealed`).');
else if ('missing' in sealedR) {
  out(
    existsSync(join(evalDir, ROUND_19_SEALED.indirectDir))
      ? `engram-r19-sealed: not present in full (missing ${sealedR.missing.join(', ')}); not scored.`
      : 'engram-r19-sealed: not present.',
  );
}
if (sealed) {
  const rates = (items: readonly Item[]) => {
    const cells = DETECTORS.map((d) =>
      pct(items.filter((i) => fired(verdicts.get(i)!, d)).length, items.length),
    );
    return `${items.length} | ${cells.join(' | ')}`;
  };
  const by = (items: readonly Item[], field: string) => {
    const values = [...new Set(items.map((i) => i.tags?.[field] ?? '-'))].sort();
    return values.map((v) => [v, items.filter((i) => (i.tags?.[field] ?? '-') === v)] as const);
  };
  out("Screened in each item's context (stage 3: rules alone, learned signal alone, both).");
  out();
  out('| attacks | value | items | recall rules | recall model | recall both |');
  out('|---|---|---:|---:|---:|---:|');
  out(`| all | | ${rates(sealed.attacks.items)} |`);
  for (const field of ['harm', 'addressing', 'carrier', 'lang'])
    for (const [v, items] of by(sealed.attacks.items, field)) out(`| ${field} | ${v} | ${rates(items)} |`);
  out();
  out('| hard negatives | items | FPR rules | FPR model | FPR both |');
  out('|---|---:|---:|---:|---:|');
  out(`| both files | ${rates(sealed.negatives.items)} |`);
  for (const [v, items] of by(sealed.negatives.items, 'file')) out(`| ${v}.sealed.jsonl | ${rates(items)} |`);
  out();
  out('| benign memories: memory_type | items | refused | flagged (injection) |');
  out('|---|---:|---:|---:|');
  const outcomes = new Map<Item, PolicyOutcome>();
  for (const i of sealed.benign.items) outcomes.set(i, await policyOutcome(i));
  for (const [v, items] of [
    ['all', sealed.benign.items] as const,
    ...by(sealed.benign.items, 'memory_type'),
  ]) {
    const o = items.map((i) => outcomes.get(i)!);
    const refused = o.filter((x) => x.refused).length;
    const flagged = o.filter((x) => x.flagged).length;
    const inj = o.filter((x) => x.flagged && x.injection).length;
    out(
      `| ${v} | ${items.length} | ${refused} (${pct(refused, items.length)}) | ${flagged} (${pct(flagged, items.length)}; ${inj}) |`,
    );
  }
}
out();

// ---- Stage 4 with escalation `uncertain`, against a local stand-in.
const standIn = await new ChatCompletionsServer(() => verdict(false, 0.9)).start();
try {
  const classifier = new ChatCompletionsClassifier({
    baseUrl: standIn.baseUrl,
    model: 'stand-in',
    timeoutMs: 2_000,
  });
  out('### Stage 4 for content screened as data (escalation `uncertain`)');
  out();
  out(
    'A local stand-in speaking the chat-completions protocol over loopback HTTP answers at once (no model behind it), so the ' +
      'per-call time below is the client, HTTP and JSON overhead only; a hosted model adds its own answer time to every call. ' +
      'With escalation `conditions` (the default) every untrusted write is sent.',
  );
  out();
  out('| corpus | split | untrusted writes | stage-4 calls | call rate | median ms per call (stand-in) |');
  out('|---|---|---:|---:|---:|---:|');
  for (const c of corpora.filter((x) => x.engram)) {
    for (const split of ['dev', 'validation', 'sealed'] as const) {
      const items = c.items.filter(
        (i) => i.split === split && (i.trustLevel === 'untrusted' || i.channel === 'mcp'),
      );
      if (items.length === 0) continue;
      const e = await escalation(items, classifier);
      const sorted = [...e.callMs].sort((a, b) => a - b);
      const med = sorted.length === 0 ? '–' : sorted[Math.floor(sorted.length / 2)]!.toFixed(2);
      out(`| ${c.name} | ${split} | ${e.writes} | ${e.calls} | ${pct(e.calls, e.writes)} | ${med} |`);
    }
  }
  out();
} finally {
  await standIn.stop();
}

// ---- Latency.
const engramTexts = corpora.filter((c) => c.engram).flatMap((c) => c.items.map((i) => i.text));
/**
 * A text as the service receives it: decoded from a request's bytes into a flat string. A string
 * cut from a longer one with slice() is a view into it in V8, and reading one character at a time
 * from a view costs about half again as much (measured: a loop over 2,048 characters, 6.1 µs on a
 * slice, 4.3 µs flat), so the latency rows would measure the bench's own strings, not the service.
 */
const decoded = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
const write = (text: string) => ({
  content: decoded(text),
  agent_id: 'bench',
  memory_type: 'standard',
  metadata: { source: 'bench', tags: ['x'] },
});
const writes = engramTexts.map(write);
const dataCtx = { trustLevel: 'untrusted', memoryType: 'standard', channel: 'mcp' };
const memoryCtx = { trustLevel: 'internal', memoryType: 'standard', channel: 'rest' };
type W = ReturnType<typeof write>;
const stage1 = (w: W) => validateWrite(w, DEFAULT_WRITE_LIMITS);
const stage2 = (w: W) => scanWrite(w, { stage2: true, stage3: false });
const rules3 = (w: W) => scanWrite(w, { stage2: false, stage3: true });
const modelOnly = (w: W) => scoreWithModel(w.content);
const stages123 = (ctx: typeof dataCtx) => (w: W) => {
  validateWrite(w, DEFAULT_WRITE_LIMITS);
  return scanWriteInContext(w, ctx);
};
let twoKb = '';
const benignTexts = benign.items.filter((i) => i.split === 'dev').map((i) => i.text);
for (let i = 0; twoKb.length < 2048; i++) twoKb += benignTexts[i % benignTexts.length] + ' ';
twoKb = twoKb.slice(0, 2048);
const twoKbWrites = Array.from({ length: 2000 }, () => write(twoKb));
const rows: [string, Latency, Latency][] = [
  [
    'stages 1-3, screened as data (every rule + learned signal)',
    measureBest(writes, stages123(dataCtx)),
    measureBest(twoKbWrites, stages123(dataCtx), 1, 5),
  ],
  [
    'stages 1-3, screened as a memory',
    measureBest(writes, stages123(memoryCtx)),
    measureBest(twoKbWrites, stages123(memoryCtx), 1, 5),
  ],
  ['stage 1 (validation)', measureBest(writes, stage1), measureBest(twoKbWrites, stage1, 1, 5)],
  ['stage 2 (sensitive data)', measureBest(writes, stage2), measureBest(twoKbWrites, stage2, 1, 5)],
  ['stage 3 rules (every tier)', measureBest(writes, rules3), measureBest(twoKbWrites, rules3, 1, 5)],
  ['stage 3 learned signal', measureBest(writes, modelOnly), measureBest(twoKbWrites, modelOnly, 1, 5)],
];
// A reference that no change of this code moves: a loop over 2,048 characters. Its time shows how
// much the machine's other work slows this run down.
const refText = 'x'.repeat(2048);
const refLoop = (t: string) => {
  let a = 0;
  for (let i = 0; i < t.length; i++) a = (a + t.charCodeAt(i)) | 0;
  return a;
};
const reference = measureBest(
  Array.from({ length: 2000 }, () => refText),
  refLoop,
  1,
  5,
);
out('### Latency per item (µs), in process, one call per sample');
out();
const meanLen = Math.round(engramTexts.reduce((a, t) => a + t.length, 0) / engramTexts.length);
out(
  `Engram corpus items: ${engramTexts.length} texts (mean ${meanLen} characters) x 5 rounds, best of 3 repeats. 2 KB item: 2,048 characters of benign memory text, ` +
    '2,000 runs, best of 5 repeats. "Best" is the repeat with the lowest median: the machine is shared with other work, and the least ' +
    'disturbed repeat is the closest to the cost of the code. Budget: stages 1-3 at most 50 µs median per 2 KB item. ' +
    `Load reference: a plain loop over 2,048 characters took ${us(reference.medianUs)} µs median in this run; stage 1, unchanged by issue 15, ` +
    'took 7.71 µs per 2 KB item in the run of 2026-11-22 (load average 1.3): the ratio of the stage-1 figure below to that one is how much ' +
    'the other work on the machine inflates every row.',
);
out();
out('| stages | corpus median | corpus p99 | 2 KB median | 2 KB p99 |');
out('|---|---:|---:|---:|---:|');
for (const [name, c, k] of rows)
  out(`| ${name} | ${us(c.medianUs)} | ${us(c.p99Us)} | ${us(k.medianUs)} | ${us(k.p99Us)} |`);
out();
// The same 2 KB item on every call keeps RE2's DFA caches warm; writes differ. 300 different 2 KB
// items of benign memory text (each from its own offset in the dev memories of every Engram round,
// seven languages) show what new text costs.
const everyBenign = corpora
  .filter((c) => c.engram && c.name.endsWith('-benign'))
  .flatMap((c) => c.items.filter((i) => i.split === 'dev').map((i) => i.text));
const variedTwoKb = Array.from({ length: 300 }, (_, k) => {
  let t = '';
  for (let i = k * 7; t.length < 2048; i++) t += everyBenign[i % everyBenign.length] + ' ';
  return write(t.slice(0, 2048));
});
out('### Latency per 2 KB item (µs), 300 different items, 3 rounds, best of 3 repeats');
out();
out(
  `Each item is 2,048 characters of the dev memories of every Engram round (${everyBenign.length} texts, seven languages) from its own offset: ` +
    'new text on every call, as writes are, where the row above repeats one item and keeps the DFA caches of RE2 warm.',
);
out();
out('| stages | median | p99 |');
out('|---|---:|---:|');
for (const [name, fn] of [
  ['stages 1-3, screened as data', stages123(dataCtx)],
  ['stages 1-3, screened as a memory', stages123(memoryCtx)],
  ['stage 3 learned signal', modelOnly],
] as const) {
  const l = measureBest(variedTwoKb, fn, 3, 3);
  out(`| ${name} | ${us(l.medianUs)} | ${us(l.p99Us)} |`);
}
out();
out('### 50,000-character adversarial inputs (stages 1-3 screened as data, worst of 5 runs)');
out();
out('| input | ms |');
out('|---|---:|');
for (const a of adversarialInputs()) {
  const l = measure([write(a.text)], stages123(dataCtx), 5);
  out(`| ${a.name} | ${(l.maxUs / 1000).toFixed(2)} |`);
}

const report = lines.join('\n');
console.log(report);
if (!withoutSealed) {
  writeBenchSection('security', report);
  console.log('\nwritten to docs/benchmarks.md');
}
