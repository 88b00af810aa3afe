#!/usr/bin/env node
// Structural check of the engram-r3 sealed set. It prints counts only, never an item's text,
// so running it does not expose the held-out data. Exit code 1 on any problem.
//   node libs/security-rules/eval/engram-r3/check.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
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
const LANGS = ['en', 'de', 'fr', 'es', 'it'];
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

const files = {
  attacks: {
    name: 'indirect-injections.sealed.jsonl',
    idRe: /^r3i-\d{4}$/,
    label: 1,
    min: 230,
    enums: {
      carrier: CARRIERS,
      lang: LANGS,
      harm: ['access', 'money', 'device', 'deletion', 'settings', 'exfiltration', 'other'],
      target: ['address', 'name', 'none'],
      position: ['start', 'middle', 'end'],
      addressing: ['explicit', 'implicit', 'disguised'],
      memory_type: ['standard'],
      trust_level: ['untrusted'],
      channel: ['mcp'],
    },
  },
  negatives: {
    name: 'hard-negatives.sealed.jsonl',
    idRe: /^r3n-\d{4}$/,
    label: 0,
    min: 110,
    enums: {
      carrier: CARRIERS,
      lang: LANGS,
      harm: ['none'],
      target: ['none'],
      position: ['none'],
      addressing: ['none'],
      memory_type: ['standard'],
      trust_level: ['untrusted'],
      channel: ['mcp'],
    },
  },
  benign: {
    name: 'benign-memories.sealed.jsonl',
    idRe: /^r3b-\d{4}$/,
    label: 0,
    min: 160,
    enums: {
      memory_type: MEMORY_TYPES,
      kind: KINDS,
      trust_level: ['internal', 'untrusted'],
      channel: ['rest', 'mcp'],
    },
  },
};

const problems = [];
const seenIds = new Set();
const seenTexts = new Set();
const report = {};

for (const [key, spec] of Object.entries(files)) {
  const lines = readFileSync(join(here, spec.name), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const counts = {};
  const lengths = [];
  lines.forEach((line, i) => {
    const where = `${spec.name}:${i + 1}`;
    let row;
    try {
      row = JSON.parse(line);
    } catch {
      problems.push(`${where} does not parse`);
      return;
    }
    if (!spec.idRe.test(row.id ?? '')) problems.push(`${where} bad id`);
    if (seenIds.has(row.id)) problems.push(`${where} duplicate id`);
    seenIds.add(row.id);
    if (typeof row.text !== 'string' || row.text.trim().length < 20)
      problems.push(`${where} text missing or too short`);
    else {
      if (seenTexts.has(row.text)) problems.push(`${where} duplicate text`);
      seenTexts.add(row.text);
      lengths.push(row.text.length);
    }
    if (row.label !== spec.label) problems.push(`${where} label must be ${spec.label}`);
    if (key === 'benign' && typeof row.style !== 'string') problems.push(`${where} style missing`);
    for (const [field, allowed] of Object.entries(spec.enums)) {
      if (!allowed.includes(row[field])) problems.push(`${where} ${field} not in the allowed values`);
      counts[field] ??= {};
      counts[field][row[field]] = (counts[field][row[field]] ?? 0) + 1;
    }
    if (key === 'benign') {
      counts.style ??= {};
      counts.style[row.style] = (counts.style[row.style] ?? 0) + 1;
    }
    if (row.carrier === 'json_tool_result') {
      try {
        JSON.parse(row.text);
      } catch {
        problems.push(`${where} JSON carrier text is not valid JSON`);
      }
    }
  });
  if (lines.length < spec.min)
    problems.push(`${spec.name} has ${lines.length} rows, expected at least ${spec.min}`);
  lengths.sort((a, b) => a - b);
  report[spec.name] = {
    rows: lines.length,
    length: {
      min: lengths[0],
      median: lengths[Math.floor(lengths.length / 2)],
      max: lengths[lengths.length - 1],
    },
    ...counts,
  };
}

process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (problems.length > 0) {
  process.stderr.write(`${problems.length} problem(s):\n${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('ok: every line parses, ids unique, required fields present, JSON carriers valid\n');
