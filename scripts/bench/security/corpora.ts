import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '@engram/security-rules';

/**
 * Where an item may be used. dev: read freely, tune rules and train the model on it. validation:
 * choose thresholds, read aggregates (single items only to explain a regression). sealed: scored
 * once for a release, never read, never printed. retired: used while writing the rules, reported
 * for the record but counted nowhere else.
 */
export type Split = 'dev' | 'validation' | 'sealed' | 'retired';
export const SPLITS = ['dev', 'validation', 'sealed', 'retired'] as const satisfies readonly Split[];

/** The write an item is screened as: the inputs the context-aware screen uses. */
export interface ItemContext {
  readonly memoryType: string;
  readonly trustLevel: string;
  readonly channel: string;
}

/** One labelled item of a corpus. */
export interface Item extends ItemContext {
  readonly text: string;
  readonly injection: boolean;
  readonly split: Split;
  /** A sub-family for per-family reporting (the direct corpus's attack family, the indirect harm). */
  readonly family?: string | undefined;
  /** Who wrote the item (one Engram round's writer): what writer-held-out validation holds out. */
  readonly writer?: string | undefined;
  /** The item's descriptive fields (harm, addressing, carrier, lang, memory_type, file): aggregates only. */
  readonly tags?: Readonly<Record<string, string>> | undefined;
}

export interface Corpus {
  readonly name: string;
  /** Whether the items were written for Engram before tuning (else a public or older corpus). */
  readonly engram: boolean;
  readonly items: readonly Item[];
}

/** An internal agent's own note over REST (what the public corpora of prompts are screened as). */
const INTERNAL_NOTE: ItemContext = { memoryType: 'standard', trustLevel: 'internal', channel: 'rest' };
/** Outside content an agent stores through MCP, labelled untrusted. */
const TOOL_OUTPUT: ItemContext = { memoryType: 'standard', trustLevel: 'untrusted', channel: 'mcp' };

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Indices 0..n-1 in a seeded Fisher-Yates order. */
function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const rand = mulberry32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Seed of the dev/validation split of the public corpora (issue 15). */
export const PUBLIC_SPLIT_SEED = 1515;

/**
 * deepset/prompt-injections. Every part of it was read while the rules were written, so none is held
 * out: its train split is divided 60/40 into dev and validation by a seeded shuffle; its test split,
 * which earlier reports called held out but which rules were written against, is retired.
 */
export function deepset(dataDir: string): Corpus {
  const rows = readJsonl(join(dataDir, 'deepset-prompt-injections.jsonl'));
  const train = rows.filter((r) => r.split !== 'test');
  const order = shuffled(train.length, PUBLIC_SPLIT_SEED);
  const devCount = Math.round(train.length * 0.6);
  const splitOf = new Map<Record<string, unknown>, Split>();
  order.forEach((idx, rank) => splitOf.set(train[idx]!, rank < devCount ? 'dev' : 'validation'));
  return {
    name: 'deepset-prompt-injections',
    engram: false,
    items: rows.map((r) => ({
      text: String(r.text),
      injection: r.label === 1,
      split: splitOf.get(r) ?? 'retired',
      ...INTERNAL_NOTE,
    })),
  };
}

const POSITIONS = ['start', 'middle', 'end'] as const;

function insertAt(context: string, attack: string, where: (typeof POSITIONS)[number]): string {
  if (where === 'start') return `${attack}\n${context}`;
  if (where === 'end') return `${context}\n${attack}`;
  // Middle: at the sentence boundary nearest the centre (as BIPIA inserts), else at a space.
  const centre = Math.floor(context.length / 2);
  let cut = context.indexOf('. ', centre);
  if (cut < 0) cut = context.indexOf(' ', centre);
  if (cut < 0) cut = centre;
  else cut += 1;
  return `${context.slice(0, cut)} ${attack} ${context.slice(cut)}`;
}

/**
 * BIPIA e-mail: benign e-mails are negatives; the same e-mails with an attack string inserted at the
 * start, middle or end are positives. Every attack string was read while the rules were written, so
 * nothing here is held out: attack strings 0, 2, 4 of each category on even e-mails are dev, attack
 * strings 1 and 3 on odd e-mails are validation (dev and validation share neither attacks nor
 * e-mails). Screened as untrusted tool output.
 */
export function bipia(dataDir: string): Corpus {
  const emails = readJsonl(join(dataDir, 'bipia', 'email-train.jsonl')).map((r) => String(r.context));
  const attacks: { text: string; split: Split }[] = [];
  for (const file of ['text_attack_train.json', 'code_attack_train.json']) {
    const byCategory = JSON.parse(readFileSync(join(dataDir, 'bipia', file), 'utf8')) as Record<
      string,
      string[]
    >;
    for (const list of Object.values(byCategory)) {
      list.forEach((text, i) => attacks.push({ text, split: i % 2 === 0 ? 'dev' : 'validation' }));
    }
  }
  const items: Item[] = emails.map((text, i) => ({
    text,
    injection: false,
    split: i % 2 === 0 ? 'dev' : 'validation',
    ...TOOL_OUTPUT,
  }));
  const dev = emails.filter((_, i) => i % 2 === 0);
  const held = emails.filter((_, i) => i % 2 === 1);
  attacks.forEach((a, i) => {
    const pool = a.split === 'dev' ? dev : held;
    POSITIONS.forEach((where, p) => {
      const context = pool[(i * 3 + p) % pool.length] ?? '';
      items.push({ text: insertAt(context, a.text, where), injection: true, split: a.split, ...TOOL_OUTPUT });
    });
  });
  return { name: 'bipia-email (indirect)', engram: false, items };
}

/** An older corpus file: one item per line, `\n` escapes for line breaks. */
function readLines(benchDataDir: string, file: string, injection: boolean, ctx: ItemContext): Item[] {
  return readFileSync(join(benchDataDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((text) => ({ text: text.replace(/\\n/g, '\n'), injection, split: 'dev' as const, ...ctx }));
}

/**
 * The older Engram bench files (libs/security-rules/bench-data): benign memories full of trigger
 * words and indirect injections in carriers. The rules were narrowed or widened after reading every
 * one of them, whatever their file name says, so all of them are dev now.
 */
export function olderBenchData(benchDataDir: string): Corpus {
  return {
    name: 'older bench-data (benign memories, indirect)',
    engram: false,
    items: [
      ...['benign-dev.txt', 'benign-holdout.txt', 'benign-holdout-2.txt', 'benign-holdout-3.txt'].flatMap(
        (f) => readLines(benchDataDir, f, false, INTERNAL_NOTE),
      ),
      ...readLines(benchDataDir, 'indirect-holdout.txt', true, TOOL_OUTPUT),
    ],
  };
}

/** The splits of the Engram corpora a caller reads: the training script never opens a sealed file. */
export type EngramSplit = Exclude<Split, 'retired'>;
const ALL_ENGRAM_SPLITS: readonly EngramSplit[] = ['dev', 'validation', 'sealed'];

/** Reads `<base>.<split>.jsonl` for the requested splits of a corpus written for Engram. */
function readSplits<T>(
  dir: string,
  base: string,
  splits: readonly EngramSplit[],
  map: (r: Record<string, unknown>, split: Split) => T,
): T[] {
  const items: T[] = [];
  for (const split of splits) {
    for (const r of readJsonl(join(dir, `${base}.${split}.jsonl`))) items.push(map(r, split));
  }
  return items;
}

const str = (v: unknown, fallback: string) => (typeof v === 'string' && v !== '' ? v : fallback);

function contextOf(r: Record<string, unknown>, fallback: ItemContext): ItemContext {
  return {
    memoryType: str(r.memory_type, fallback.memoryType),
    trustLevel: str(r.trust_level, fallback.trustLevel),
    channel: str(r.channel, fallback.channel),
  };
}

/**
 * Where a round of the Engram corpora lives. Round 2 (engram-benign, engram-indirect) has dev,
 * validation and sealed splits. engram-train-r4 is training data only: one file per corpus whose rows
 * carry their split (dev or validation), no sealed part. Round 3 (engram-r3) and round 4
 * (engram-r4-sealed) were sealed sets, each scored once and then retired in round 5 (their data
 * cards): engram-r3 is now dev as a whole and engram-r4-sealed validation as a whole, so the
 * thresholds are chosen on a writer the model never trained on. From round 5 on, each round's sealed
 * set is scored once, then retired into validation and, a round later, into dev (ROUND_5 … and
 * RETIRED_ROUNDS say where each one is now); the set of the round in progress is sealed only and may
 * be absent.
 */
export interface EngramRound {
  /** Prefix of the corpus names in the report. */
  readonly name: string;
  /** The round's writer (one person per round; see the data cards). */
  readonly writer: string;
  readonly benignDir: string;
  readonly indirectDir: string;
  readonly splits: readonly EngramSplit[];
  /**
   * `per-split`: `<base>.<split>.jsonl` for each split; `field`: one `<base>.jsonl` whose rows name
   * their split in a `split` field; `retired`: the files of a spent sealed set, `<base>.sealed.jsonl`,
   * read whole as the round's one split.
   */
  readonly layout: 'per-split' | 'field' | 'retired';
  /** The hard-negative files (without `.<split>.jsonl`); `hard-negatives` when absent. */
  readonly hardNegativeFiles?: readonly string[];
}
export const ROUND_2: EngramRound = {
  name: 'engram',
  writer: 'r2',
  benignDir: 'engram-benign',
  indirectDir: 'engram-indirect',
  splits: ALL_ENGRAM_SPLITS,
  layout: 'per-split',
};
/** Retired in round 5 (spent in round 3): dev, read whole. */
export const ROUND_3: EngramRound = {
  name: 'engram-r3',
  writer: 'r3',
  benignDir: 'engram-r3',
  indirectDir: 'engram-r3',
  splits: ['dev'],
  layout: 'retired',
};
/** Retired in round 5 (spent in round 4): validation, read whole, by a writer the model never trains on. */
export const ROUND_4_SEALED: EngramRound = {
  name: 'engram-r4',
  writer: 'r4',
  benignDir: 'engram-r4-sealed',
  indirectDir: 'engram-r4-sealed',
  splits: ['validation'],
  layout: 'retired',
};
export const ROUND_4_TRAIN: EngramRound = {
  name: 'engram-train-r4',
  writer: 'train-r4',
  benignDir: 'engram-train-r4',
  indirectDir: 'engram-train-r4',
  splits: ['dev', 'validation'],
  layout: 'field',
};
/**
 * The sealed set of round `n` (engram-r<n>-sealed, from round 5 on): two writers, its attacks, two
 * hard-negative files (the minimal pairs of its attacks, writer A; the standalone ones, writer B) and
 * its memories. Spent by its one scoring, it is read whole as `split` (layout `retired`).
 */
function roundSet(n: number, split: EngramSplit): EngramRound {
  return {
    name: `engram-r${n}`,
    writer: `r${n}`,
    benignDir: `engram-r${n}-sealed`,
    indirectDir: `engram-r${n}-sealed`,
    splits: [split],
    layout: 'retired',
    hardNegativeFiles: ['hard-negatives.pairs', 'hard-negatives'],
  };
}
/** Round 5's sealed set: scored once in round 5, validation in round 6, dev since round 7 (its data card). */
export const ROUND_5 = roundSet(5, 'dev');
/** Round 6's sealed set: scored once in round 6, validation in round 7, dev since round 8 (its data card). */
export const ROUND_6 = roundSet(6, 'dev');
/**
 * Round 7's sealed set: scored once in round 7 and retired in round 8 (its data card): validation,
 * a pair of writers the shipped model never trains on.
 */
export const ROUND_7 = roundSet(7, 'validation');
/** Round 8's sealed set: scored once in round 8, dev since round 9 (its data cards). */
export const ROUND_8 = roundSet(8, 'dev');
/** Round 9's sealed set: scored once in round 9, dev since round 10 (its data cards). */
export const ROUND_9 = roundSet(9, 'dev');
/**
 * Round 10's sealed set: scored once at the start of round 10 with round 9's system, validation in
 * round 10, dev since round 11 (its data cards).
 */
export const ROUND_10 = roundSet(10, 'dev');
/** Round 11's sealed set: scored once at the end of round 10, validation in round 11, dev since round 12 (its data cards). */
export const ROUND_11 = roundSet(11, 'dev');
/** Round 12's sealed set: scored once at the end of round 11, validation in round 12, dev since round 13 (its data cards). */
export const ROUND_12 = roundSet(12, 'dev');
/** Round 13's sealed set: scored once at the end of round 12, validation in round 13, dev since round 14 (its data cards). */
export const ROUND_13 = roundSet(13, 'dev');
/**
 * Round 14's sealed set: scored once at the end of round 13, validation since round 14 (its data
 * cards): a pair of writers the shipped model never trains on.
 */
export const ROUND_14 = roundSet(14, 'validation');
/**
 * Round 15's sealed set: scored once at the end of round 14, dev since round 15 (its data cards). It
 * skipped validation: round 15 read its misses to decide what to change, so it could no longer be
 * the writer thresholds are chosen on; engram-r14-sealed stays validation.
 */
export const ROUND_15 = roundSet(15, 'dev');
/**
 * Round 16's sealed set (engram-r16-sealed) was scored once at the end of round 15 (its data cards).
 * Round 16's lead then read its flagged memories and misses, so it can no longer pick thresholds;
 * as training data it lost on validation (hard negatives flagged 17.2% -> 18.9% for two more of
 * 1,179 planted requests, the corroboration floor falling to 0.25), so nothing reads it yet.
 * Rounds 17 and 18's sealed sets were scored once at the ends of rounds 16 and 17 (their data cards);
 * engram-r17-sealed was then read by round 17's lead, and neither is read by anything yet. Round
 * 19's sealed set: scored by the bench as aggregates only, never read by training, absent until the
 * lead adds it; its files are `<base>.sealed.jsonl` read as the sealed split.
 */
export const ROUND_19_SEALED: EngramRound = { ...roundSet(19, 'sealed'), layout: 'per-split' };

/** The rows of one corpus file set of a round, for the requested splits only. */
function readRound(dir: string, base: string, round: EngramRound, splits: readonly EngramSplit[]) {
  if (round.layout === 'per-split') {
    return readSplits(dir, base, splits, (r, split) => ({ r, split }));
  }
  if (round.layout === 'retired') {
    const split = round.splits[0]!;
    return splits.includes(split)
      ? readJsonl(join(dir, `${base}.sealed.jsonl`)).map((r) => ({ r, split }))
      : [];
  }
  // A sealed row in a one-file corpus is never read: only the splits asked for are kept.
  return readJsonl(join(dir, `${base}.jsonl`))
    .map((r) => ({ r, split: r.split as Split }))
    .filter(({ split }) => (splits as readonly string[]).includes(split));
}

/** What one corpus of a round is: its file, its label, the field that names its sub-family. */
interface EngramKind {
  readonly suffix: string;
  readonly base: string;
  readonly dir: (round: EngramRound) => string;
  readonly injection: boolean;
  readonly familyField: string;
  readonly familyFallback: string;
  readonly context: ItemContext;
}

/** Everyday agent memories that use trigger words innocently (all negatives). */
const BENIGN_MEMORIES: EngramKind = {
  suffix: '-benign',
  base: 'benign-memories',
  dir: (r) => r.benignDir,
  injection: false,
  familyField: 'kind',
  familyFallback: 'note',
  context: INTERNAL_NOTE,
};
/** Stored tool output, in the round's indirect directory: screened as untrusted data. */
const toolOutputKind = (
  suffix: string,
  base: string,
  injection: boolean,
  familyField: string,
): EngramKind => ({
  suffix,
  base,
  dir: (r) => r.indirectDir,
  injection,
  familyField,
  familyFallback: 'other',
  context: TOOL_OUTPUT,
});
/** Instructions planted in stored tool output, by harm. */
const INDIRECT_ATTACKS = toolOutputKind('-indirect (attacks)', 'indirect-injections', true, 'harm');
/** Benign tool output whose imperatives address people, by carrier. */
const HARD_NEGATIVES = toolOutputKind('-indirect (hard negatives)', 'hard-negatives', false, 'carrier');

/** The fields a report may aggregate over (never the text). */
const TAG_FIELDS = ['harm', 'addressing', 'carrier', 'lang', 'memory_type', 'kind'] as const;

function engramCorpus(
  kind: EngramKind,
  evalDir: string,
  splits: readonly EngramSplit[] | undefined,
  round: EngramRound,
): Corpus {
  // A caller's splits narrow the round's (a development run of a sealed-only round reads nothing).
  const wanted = round.splits.filter((s) => splits === undefined || splits.includes(s));
  const bases = kind === HARD_NEGATIVES ? (round.hardNegativeFiles ?? [kind.base]) : [kind.base];
  return {
    name: `${round.name}${kind.suffix}`,
    engram: true,
    items: bases.flatMap((base) =>
      readRound(join(evalDir, kind.dir(round)), base, round, wanted).map(({ r, split }) => {
        const tags: Record<string, string> = { file: base };
        for (const f of TAG_FIELDS) if (typeof r[f] === 'string') tags[f] = r[f];
        return {
          text: String(r.text),
          injection: kind.injection,
          split,
          family: str(r[kind.familyField], kind.familyFallback),
          writer: round.writer,
          tags,
          ...contextOf(r, kind.context),
        };
      }),
    ),
  };
}

/** A round's benign memories. */
export const engramBenign = (evalDir: string, splits?: readonly EngramSplit[], round = ROUND_2) =>
  engramCorpus(BENIGN_MEMORIES, evalDir, splits, round);
/** A round's indirect injections. */
export const engramIndirect = (evalDir: string, splits?: readonly EngramSplit[], round = ROUND_2) =>
  engramCorpus(INDIRECT_ATTACKS, evalDir, splits, round);
/** A round's hard negatives. */
export const engramHardNegatives = (evalDir: string, splits?: readonly EngramSplit[], round = ROUND_2) =>
  engramCorpus(HARD_NEGATIVES, evalDir, splits, round);

/** The three corpora of a sealed round, or the files of it that are missing (none read then). */
export type SealedRound =
  | { readonly missing: readonly string[] }
  | { readonly attacks: Corpus; readonly negatives: Corpus; readonly benign: Corpus };

/**
 * A sealed-only round (engram-r6-sealed): its corpora when every file is there, else the missing
 * file names (the whole folder may be absent while the set is being written).
 */
export function sealedRound(evalDir: string, round: EngramRound): SealedRound {
  const files = [
    ...[INDIRECT_ATTACKS.base, ...(round.hardNegativeFiles ?? [HARD_NEGATIVES.base])].map((b) =>
      join(round.indirectDir, `${b}.sealed.jsonl`),
    ),
    join(round.benignDir, `${BENIGN_MEMORIES.base}.sealed.jsonl`),
  ];
  const missing = files.filter((f) => !existsSync(join(evalDir, f)));
  if (missing.length > 0) return { missing };
  return {
    attacks: engramIndirect(evalDir, ['sealed'], round),
    negatives: engramHardNegatives(evalDir, ['sealed'], round),
    benign: engramBenign(evalDir, ['sealed'], round),
  };
}

/**
 * The spent sealed sets of rounds 3 to 15, retired into training and tuning (each read whole as
 * its one split, see ROUND_3 … ROUND_15): engram-r3, engram-r5-sealed, engram-r6-sealed,
 * engram-r8-sealed to engram-r13-sealed and engram-r15-sealed are dev, engram-r4-sealed, engram-r7-sealed and
 * engram-r14-sealed validation. One list for training and for the bench.
 */
export const RETIRED_ROUNDS: readonly EngramRound[] = [
  ROUND_3,
  ROUND_4_SEALED,
  ROUND_5,
  ROUND_6,
  ROUND_7,
  ROUND_8,
  ROUND_9,
  ROUND_10,
  ROUND_11,
  ROUND_12,
  ROUND_13,
  ROUND_14,
  ROUND_15,
];

/** The Engram rounds training and tuning read: round 2, engram-train-r4 and the retired rounds. */
export const TRAINING_ROUNDS: readonly EngramRound[] = [ROUND_2, ROUND_4_TRAIN, ...RETIRED_ROUNDS];

/** The corpora of the training rounds for the given splits (what training and tuning read). */
export function engramTrainingCorpora(evalDir: string, splits: readonly EngramSplit[]): Corpus[] {
  return TRAINING_ROUNDS.flatMap((round) => [
    engramBenign(evalDir, splits, round),
    engramIndirect(evalDir, splits, round),
    engramHardNegatives(evalDir, splits, round),
  ]);
}

/**
 * engram-direct: direct injections and benign prompts that mention trigger words, by family
 * (system_override, role_manipulation, data_exfiltration, other, benign). Absent until it is written.
 */
export function engramDirect(evalDir: string, splits = ALL_ENGRAM_SPLITS): Corpus | undefined {
  const dir = join(evalDir, 'engram-direct');
  if (!existsSync(join(dir, 'direct.dev.jsonl'))) return undefined;
  return {
    name: 'engram-direct',
    engram: true,
    items: readSplits(dir, 'direct', splits, (r, split) => {
      const family = str(r.family, 'benign');
      const injection = typeof r.label === 'number' ? r.label === 1 : family !== 'benign';
      return {
        text: String(r.text),
        injection,
        split,
        family,
        writer: 'direct',
        ...contextOf(r, INTERNAL_NOTE),
      };
    }),
  };
}
