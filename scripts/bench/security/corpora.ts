import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One labelled item of a corpus; split says whether it was used while developing the rules. */
export interface Item {
  readonly text: string;
  readonly injection: boolean;
  readonly split: 'dev' | 'holdout';
}

export interface Corpus {
  readonly name: string;
  readonly items: readonly Item[];
}

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** deepset/prompt-injections: its own train split is dev, its test split is held out. */
export function deepset(dataDir: string): Corpus {
  const rows = readJsonl(join(dataDir, 'deepset-prompt-injections.jsonl'));
  return {
    name: 'deepset-prompt-injections',
    items: rows.map((r) => ({
      text: String(r.text),
      injection: r.label === 1,
      split: r.split === 'test' ? 'holdout' : 'dev',
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
 * BIPIA e-mail: benign e-mails are negatives; the same e-mails with an attack string inserted at
 * the start, middle or end are positives (every attack at every position, on rotating e-mails).
 * Attack strings are split by their index inside their category (0, 2, 4 dev; 1, 3 holdout), e-mails
 * by parity, so the held-out part shares neither attacks nor contexts with the dev part.
 */
export function bipia(dataDir: string): Corpus {
  const emails = readJsonl(join(dataDir, 'bipia', 'email-train.jsonl')).map((r) => String(r.context));
  const attacks: { text: string; split: 'dev' | 'holdout' }[] = [];
  for (const file of ['text_attack_train.json', 'code_attack_train.json']) {
    const byCategory = JSON.parse(readFileSync(join(dataDir, 'bipia', file), 'utf8')) as Record<
      string,
      string[]
    >;
    for (const list of Object.values(byCategory)) {
      list.forEach((text, i) => attacks.push({ text, split: i % 2 === 0 ? 'dev' : 'holdout' }));
    }
  }
  const items: Item[] = emails.map((text, i) => ({
    text,
    injection: false,
    split: i % 2 === 0 ? 'dev' : 'holdout',
  }));
  const dev = emails.filter((_, i) => i % 2 === 0);
  const held = emails.filter((_, i) => i % 2 === 1);
  attacks.forEach((a, i) => {
    const pool = a.split === 'dev' ? dev : held;
    POSITIONS.forEach((where, p) => {
      const context = pool[(i * 3 + p) % pool.length] ?? '';
      items.push({ text: insertAt(context, a.text, where), injection: true, split: a.split });
    });
  });
  return { name: 'bipia-email (indirect)', items };
}

/** A corpus file written for Engram: one item per line, `\n` escapes for line breaks. */
function readLines(benchDataDir: string, file: string, injection: boolean, split: Item['split']): Item[] {
  return readFileSync(join(benchDataDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((text) => ({ text: text.replace(/\\n/g, '\n'), injection, split }));
}

/** The benign memory-like corpus written for Engram: negatives full of trigger words. */
export function benignMemories(benchDataDir: string): Corpus {
  const read = (file: string, split: Item['split']) => readLines(benchDataDir, file, false, split);
  return {
    name: 'engram benign memories (trigger words)',
    items: [
      ...read('benign-dev.txt', 'dev'),
      ...read('benign-holdout.txt', 'holdout'),
      ...read('benign-holdout-2.txt', 'holdout'),
      ...read('benign-holdout-3.txt', 'holdout'),
    ],
  };
}

/**
 * Indirect injections written for Engram (indirect-holdout.txt): attacker instructions planted in
 * benign carriers (reviews, e-mails, tickets, tool JSON, calendar notes, code comments), written
 * before the rules were tuned and never tuned on: all held out.
 */
export function engramIndirect(benchDataDir: string): Corpus {
  return {
    name: 'engram indirect (written for Engram)',
    items: readLines(benchDataDir, 'indirect-holdout.txt', true, 'holdout'),
  };
}
