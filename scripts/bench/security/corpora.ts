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
function readSplits(
  dir: string,
  base: string,
  splits: readonly EngramSplit[],
  map: (r: Record<string, unknown>, split: Split) => Item,
): Item[] {
  const items: Item[] = [];
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
 * validation and sealed splits. Round 3 (engram-r3) is a sealed set only, written after round 2's
 * sealed aggregates had been read during tuning and before the next tuning round, by a writer who had
 * not seen the detector (its data card): scored, never read, never tuned on.
 */
export interface EngramRound {
  /** Prefix of the corpus names in the report. */
  readonly name: string;
  readonly benignDir: string;
  readonly indirectDir: string;
  readonly splits: readonly EngramSplit[];
}
export const ROUND_2: EngramRound = {
  name: 'engram',
  benignDir: 'engram-benign',
  indirectDir: 'engram-indirect',
  splits: ALL_ENGRAM_SPLITS,
};
export const ROUND_3: EngramRound = {
  name: 'engram-r3',
  benignDir: 'engram-r3',
  indirectDir: 'engram-r3',
  splits: ['sealed'],
};

/** engram-benign: everyday agent memories that use trigger words innocently (all negatives). */
export function engramBenign(evalDir: string, splits?: readonly EngramSplit[], round = ROUND_2): Corpus {
  return {
    name: `${round.name}-benign`,
    engram: true,
    items: readSplits(
      join(evalDir, round.benignDir),
      'benign-memories',
      splits ?? round.splits,
      (r, split) => ({
        text: String(r.text),
        injection: false,
        split,
        family: str(r.kind, 'note'),
        ...contextOf(r, INTERNAL_NOTE),
      }),
    ),
  };
}

/** engram-indirect: instructions planted in stored tool output, by harm. */
export function engramIndirect(evalDir: string, splits?: readonly EngramSplit[], round = ROUND_2): Corpus {
  return {
    name: `${round.name}-indirect (attacks)`,
    engram: true,
    items: readSplits(
      join(evalDir, round.indirectDir),
      'indirect-injections',
      splits ?? round.splits,
      (r, split) => ({
        text: String(r.text),
        injection: true,
        split,
        family: str(r.harm, 'other'),
        ...contextOf(r, TOOL_OUTPUT),
      }),
    ),
  };
}

/** engram-indirect's hard negatives: benign tool output whose imperatives address people. */
export function engramHardNegatives(
  evalDir: string,
  splits?: readonly EngramSplit[],
  round = ROUND_2,
): Corpus {
  return {
    name: `${round.name}-indirect (hard negatives)`,
    engram: true,
    items: readSplits(
      join(evalDir, round.indirectDir),
      'hard-negatives',
      splits ?? round.splits,
      (r, split) => ({
        text: String(r.text),
        injection: false,
        split,
        family: str(r.carrier, 'other'),
        ...contextOf(r, TOOL_OUTPUT),
      }),
    ),
  };
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
      return { text: String(r.text), injection, split, family, ...contextOf(r, INTERNAL_NOTE) };
    }),
  };
}
