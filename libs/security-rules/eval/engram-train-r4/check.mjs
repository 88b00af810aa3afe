// Structural check of the engram-train-r4 training corpus. Prints counts only, never an item's text.
// Usage: node libs/security-rules/eval/engram-train-r4/check.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const log = (line) => process.stdout.write(`${line}\n`);
const logErr = (line) => process.stderr.write(`${line}\n`);

const dir = path.dirname(fileURLToPath(import.meta.url));
const CARRIERS = [
  'review',
  'email',
  'calendar',
  'issue_comment',
  'web_page',
  'json_tool_result',
  'chat_message',
  'document',
  'support_ticket',
  'csv_or_table',
  'code_comment',
  'sms',
];
const HARMS = ['access', 'money', 'device', 'deletion', 'settings', 'exfiltration', 'other'];
const TARGETS = ['address', 'name', 'none'];
const POSITIONS = ['start', 'middle', 'end'];
const ADDRESSING = ['explicit', 'implicit', 'disguised'];
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
const SPLITS = ['dev', 'validation'];
const MEMORY_TYPES = ['procedural', 'control', 'strategy', 'reflection', 'standard', 'episodic', 'semantic'];
const KINDS = [
  'procedure',
  'runbook',
  'control_rule',
  'strategy',
  'reflection',
  'note',
  'conversation_fact',
  'tool_output',
];
const STYLES = [
  'prose',
  'first-person',
  'second-person',
  'conditional',
  'imperative',
  'numbered',
  'terse-bullet',
  'markdown',
  'json',
  'yaml',
  'qa',
  'log',
  'cli',
  'email',
  'web-page',
  'calendar',
  'changelog',
  'readme',
  'chat-export',
];
const STYLE_RE = new RegExp(`^(${STYLES.join('|')})(-(${LANGS.filter((l) => l !== 'en').join('|')}))?$`);

const errors = [];
const ids = new Set();
const texts = new Map();
const fail = (file, line, msg) => errors.push(`${file}:${line}: ${msg}`);

function load(file) {
  const raw = fs.readFileSync(path.join(dir, file), 'utf8');
  const lines = raw.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines
    .map((l, i) => {
      try {
        return { row: JSON.parse(l), line: i + 1 };
      } catch {
        fail(file, i + 1, 'line does not parse');
        return null;
      }
    })
    .filter(Boolean);
}

function common(file, row, line, prefix, label) {
  if (typeof row.id !== 'string' || !new RegExp(`^${prefix}-\\d{4}$`).test(row.id))
    fail(file, line, 'bad id');
  if (ids.has(row.id)) fail(file, line, `duplicate id ${row.id}`);
  ids.add(row.id);
  if (typeof row.text !== 'string' || row.text.trim().length < 20)
    fail(file, line, `${row.id}: text missing or too short`);
  else {
    const key = row.text.trim();
    if (texts.has(key)) fail(file, line, `${row.id}: duplicate text (also ${texts.get(key)})`);
    texts.set(key, row.id);
  }
  if (row.label !== label) fail(file, line, `${row.id}: label must be ${label}`);
  if (!SPLITS.includes(row.split)) fail(file, line, `${row.id}: bad split`);
}

function oneOf(file, line, row, field, allowed) {
  if (!allowed.includes(row[field])) fail(file, line, `${row.id}: bad ${field}`);
}

function carrierRow(file, row, line, isAttack) {
  oneOf(file, line, row, 'carrier', CARRIERS);
  oneOf(file, line, row, 'lang', LANGS);
  if (isAttack) {
    oneOf(file, line, row, 'harm', HARMS);
    oneOf(file, line, row, 'target', TARGETS);
    oneOf(file, line, row, 'position', POSITIONS);
    oneOf(file, line, row, 'addressing', ADDRESSING);
  } else {
    for (const f of ['harm', 'target', 'position', 'addressing'])
      if (row[f] !== 'none') fail(file, line, `${row.id}: ${f} must be none`);
  }
  if (row.memory_type !== 'standard' || row.trust_level !== 'untrusted' || row.channel !== 'mcp') {
    fail(file, line, `${row.id}: memory_type/trust_level/channel must be standard/untrusted/mcp`);
  }
  if (row.carrier === 'json_tool_result') {
    try {
      JSON.parse(row.text);
    } catch {
      fail(file, line, `${row.id}: json_tool_result text is not valid JSON`);
    }
  }
}

const tally = (rows, field) =>
  rows.reduce((m, r) => {
    m[r[field]] = (m[r[field]] || 0) + 1;
    return m;
  }, {});
const cross = (rows, field) => {
  const out = {};
  for (const r of rows) {
    out[r[field]] ??= { dev: 0, validation: 0 };
    out[r[field]][r.split] += 1;
  }
  return out;
};
const show = (title, obj) =>
  log(
    `  ${title}: ${Object.entries(obj)
      .sort()
      .map(([k, v]) => `${k} ${typeof v === 'object' ? `${v.dev}/${v.validation}` : v}`)
      .join(', ')}`,
  );

const atk = load('indirect-injections.jsonl');
for (const { row, line } of atk) {
  common('indirect-injections.jsonl', row, line, 't4i', 1);
  carrierRow('indirect-injections.jsonl', row, line, true);
}
const neg = load('hard-negatives.jsonl');
const attackIds = new Set(atk.map(({ row }) => row.id));
const attackSplit = new Map(atk.map(({ row }) => [row.id, row.split]));
for (const { row, line } of neg) {
  common('hard-negatives.jsonl', row, line, 't4n', 0);
  carrierRow('hard-negatives.jsonl', row, line, false);
  if (row.pair_of !== undefined) {
    if (!attackIds.has(row.pair_of))
      fail('hard-negatives.jsonl', line, `${row.id}: pair_of does not name an attack`);
    else if (attackSplit.get(row.pair_of) !== row.split)
      fail('hard-negatives.jsonl', line, `${row.id}: minimal pair not in its attack's split`);
  }
}
const ben = load('benign-memories.jsonl');
for (const { row, line } of ben) {
  common('benign-memories.jsonl', row, line, 't4b', 0);
  oneOf('benign-memories.jsonl', line, row, 'memory_type', MEMORY_TYPES);
  oneOf('benign-memories.jsonl', line, row, 'kind', KINDS);
  if (!STYLE_RE.test(row.style ?? '')) fail('benign-memories.jsonl', line, `${row.id}: bad style`);
  if (!['internal', 'untrusted'].includes(row.trust_level))
    fail('benign-memories.jsonl', line, `${row.id}: bad trust_level`);
  if (!['rest', 'mcp'].includes(row.channel)) fail('benign-memories.jsonl', line, `${row.id}: bad channel`);
  if ((row.kind === 'tool_output') !== (row.trust_level === 'untrusted'))
    fail('benign-memories.jsonl', line, `${row.id}: only tool_output rows are untrusted`);
}

const A = atk.map((x) => x.row);
const N = neg.map((x) => x.row);
const B = ben.map((x) => x.row);
const splits = (rows) =>
  `dev ${rows.filter((r) => r.split === 'dev').length}, validation ${rows.filter((r) => r.split === 'validation').length}`;
log(`indirect-injections.jsonl: ${A.length} (${splits(A)})   [per category: dev/validation]`);
show('harm', cross(A, 'harm'));
show('addressing', cross(A, 'addressing'));
show('target', cross(A, 'target'));
show('position', cross(A, 'position'));
show('carrier', cross(A, 'carrier'));
show('lang', cross(A, 'lang'));
log(`hard-negatives.jsonl: ${N.length} (${splits(N)}); minimal pairs ${N.filter((r) => r.pair_of).length}`);
show('carrier', cross(N, 'carrier'));
show('lang', cross(N, 'lang'));
log(`benign-memories.jsonl: ${B.length} (${splits(B)})`);
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
log(
  `text length: ${lens[0]} to ${lens[lens.length - 1]} characters, median ${lens[Math.floor(lens.length / 2)]}`,
);

if (A.length < 500 || N.length < 250 || B.length < 250)
  errors.push('fewer rows than the brief requires (500 / 250 / 250)');
if (errors.length) {
  logErr(`${errors.length} problem(s):`);
  for (const e of errors) logErr(`  ${e}`);
  process.exit(1);
}
log('OK: every line parses, ids unique, fields and values valid, JSON carriers valid, no duplicate texts');
