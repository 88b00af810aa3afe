// Validates the round-4 sealed set and prints counts only (never item text).
// Usage: node libs/security-rules/eval/engram-r4-sealed/check.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
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

const files = {
  attacks: { name: 'indirect-injections.sealed.jsonl', id: /^r4i-\d{4}$/, min: 250 },
  negatives: { name: 'hard-negatives.sealed.jsonl', id: /^r4n-\d{4}$/, min: 130 },
  benign: { name: 'benign-memories.sealed.jsonl', id: /^r4b-\d{4}$/, min: 170 },
};
// Piping into `head` closes stdout early; that is not a failure of the check.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
const out = (line) => process.stdout.write(`${line}\n`);
const err = (line) => process.stderr.write(`${line}\n`);
const errors = [];
const ids = new Set();
const texts = new Map();
const rows = {};

function oneOf(r, field, allowed, where) {
  if (!allowed.includes(r[field])) errors.push(`${where}: bad ${field}`);
}
function exact(r, field, value, where) {
  if (r[field] !== value) errors.push(`${where}: ${field} must be ${JSON.stringify(value)}`);
}

for (const [key, spec] of Object.entries(files)) {
  const lines = fs
    .readFileSync(path.join(dir, spec.name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  rows[key] = [];
  lines.forEach((line, i) => {
    let r;
    try {
      r = JSON.parse(line);
    } catch {
      errors.push(`${spec.name}:${i + 1}: not JSON`);
      return;
    }
    const where = `${spec.name}:${i + 1} ${r.id}`;
    if (typeof r.id !== 'string' || !spec.id.test(r.id)) errors.push(`${where}: bad id`);
    if (ids.has(r.id)) errors.push(`${where}: duplicate id`);
    ids.add(r.id);
    if (typeof r.text !== 'string' || r.text.trim().length < 20)
      errors.push(`${where}: text missing or too short`);
    else if (texts.has(r.text)) errors.push(`${where}: same text as ${texts.get(r.text)}`);
    else texts.set(r.text, r.id);
    if (key === 'benign') {
      oneOf(r, 'memory_type', MEMORY_TYPES, where);
      oneOf(r, 'kind', KINDS, where);
      const [style, lang] = String(r.style).split(/-(?=(de|fr|es|it|pt|nl)$)/);
      if (!STYLES.includes(style) || (lang && !LANGS.includes(lang))) errors.push(`${where}: bad style`);
      oneOf(r, 'trust_level', ['internal', 'untrusted'], where);
      oneOf(r, 'channel', ['rest', 'mcp'], where);
      if ((r.kind === 'tool_output') !== (r.trust_level === 'untrusted'))
        errors.push(`${where}: tool_output iff untrusted`);
      if (/[\w.+-]+@[\w-]+\.[\w.]+/.test(r.text)) errors.push(`${where}: e-mail address in benign memory`);
      exact(r, 'label', 0, where);
    } else {
      oneOf(r, 'carrier', CARRIERS, where);
      oneOf(r, 'lang', LANGS, where);
      exact(r, 'memory_type', 'standard', where);
      exact(r, 'trust_level', 'untrusted', where);
      exact(r, 'channel', 'mcp', where);
      if (key === 'attacks') {
        oneOf(r, 'harm', HARMS, where);
        oneOf(r, 'target', ['address', 'name', 'none'], where);
        oneOf(r, 'position', ['start', 'middle', 'end'], where);
        oneOf(r, 'addressing', ['explicit', 'implicit', 'disguised'], where);
        exact(r, 'label', 1, where);
      } else {
        for (const f of ['harm', 'target', 'position', 'addressing']) exact(r, f, 'none', where);
        exact(r, 'label', 0, where);
      }
      if (r.carrier === 'json_tool_result') {
        try {
          JSON.parse(r.text);
        } catch {
          errors.push(`${where}: JSON carrier text is not valid JSON`);
        }
      }
    }
    rows[key].push(r);
  });
  if (rows[key].length < spec.min)
    errors.push(`${spec.name}: ${rows[key].length} rows, need at least ${spec.min}`);
}

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
if (errors.length) {
  err(`${errors.length} problem(s):`);
  for (const e of errors) err(`  ${e}`);
  process.exit(1);
}
out('all checks passed');
