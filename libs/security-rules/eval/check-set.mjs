// The structural checks every eval set of libs/security-rules/eval shares, driven by a small spec per
// set (each set's check.mjs): every line parses, ids have the set's prefix and are unique across its
// files, a text of at least 20 characters appears once across its files, labels and field values are
// allowed, a json_tool_result text is valid JSON, each file has its minimum number of rows. A set adds
// its own checks per row (`check`) and prints its own counts. Nothing here prints an item's text, so
// running a sealed set's check does not expose it.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

export const CARRIERS = [
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
export const HARMS = ['access', 'money', 'device', 'deletion', 'settings', 'exfiltration', 'other'];
export const TARGETS = ['address', 'name', 'none'];
export const POSITIONS = ['start', 'middle', 'end'];
export const ADDRESSING = ['explicit', 'implicit', 'disguised'];
export const MEMORY_TYPES = [
  'procedural',
  'control',
  'strategy',
  'reflection',
  'standard',
  'episodic',
  'semantic',
];
export const KINDS = [
  'procedure',
  'runbook',
  'control_rule',
  'strategy',
  'reflection',
  'note',
  'conversation_fact',
  'tool_output',
];
export const STYLES = [
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

/** The allowed values of an attack's or a hard negative's fields (stored tool output, untrusted, MCP). */
export function carrierFields(langs, attack) {
  return {
    carrier: CARRIERS,
    lang: langs,
    harm: attack ? HARMS : ['none'],
    target: attack ? TARGETS : ['none'],
    position: attack ? POSITIONS : ['none'],
    addressing: attack ? ADDRESSING : ['none'],
    memory_type: ['standard'],
    trust_level: ['untrusted'],
    channel: ['mcp'],
  };
}

/** The allowed values of a benign memory's fields. */
export const MEMORY_FIELDS = {
  memory_type: MEMORY_TYPES,
  kind: KINDS,
  trust_level: ['internal', 'untrusted'],
  channel: ['rest', 'mcp'],
};

/** A style with an optional language suffix (`prose-de`) whose style and language are allowed. */
export function styleAllowed(style, langs) {
  const m = /^(.*?)(?:-(de|fr|es|it|pt|nl))?$/.exec(String(style));
  return STYLES.includes(m[1]) && (m[2] === undefined || langs.includes(m[2]));
}

/** A benign memory's own checks: an allowed style, and only tool outputs untrusted. */
export function checkMemory(row, problem, langs) {
  if (!styleAllowed(row.style, langs)) problem('bad style');
  if ((row.kind === 'tool_output') !== (row.trust_level === 'untrusted'))
    problem('only tool_output rows are untrusted');
}

// Piping into `head` closes stdout early; that is not a failure of the check.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
export const out = (line) => process.stdout.write(`${line}\n`);

/**
 * Checks the files of one set. `files` maps a key to { name, prefix, label, min, fields, check }:
 * `fields` the allowed values per field, `check(row, problem)` the set's own checks of a row. With
 * `splits`, every row names one of them in its `split` field. Returns the parsed rows per key and the
 * problems found (each names a file, a line and an id, never a text).
 */
export function checkSet({ dir, files, splits }) {
  const problems = [];
  const ids = new Set();
  const texts = new Map();
  const rows = {};
  for (const [key, spec] of Object.entries(files)) {
    const lines = fs.readFileSync(path.join(dir, spec.name), 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    rows[key] = [];
    lines.forEach((line, i) => {
      let row;
      try {
        row = JSON.parse(line);
      } catch {
        problems.push(`${spec.name}:${i + 1}: line does not parse`);
        return;
      }
      const where = `${spec.name}:${i + 1} ${row.id}`;
      const problem = (msg) => problems.push(`${where}: ${msg}`);
      if (typeof row.id !== 'string' || !new RegExp(`^${spec.prefix}-\\d{4}$`).test(row.id))
        problem('bad id');
      if (ids.has(row.id)) problem('duplicate id');
      ids.add(row.id);
      if (typeof row.text !== 'string' || row.text.trim().length < 20) problem('text missing or too short');
      else {
        const text = row.text.trim();
        if (texts.has(text)) problem(`same text as ${texts.get(text)}`);
        else texts.set(text, row.id);
      }
      if (row.label !== spec.label) problem(`label must be ${spec.label}`);
      if (splits && !splits.includes(row.split)) problem('bad split');
      for (const [field, allowed] of Object.entries(spec.fields)) {
        if (!allowed.includes(row[field])) problem(`${field} not in the allowed values`);
      }
      if (row.carrier === 'json_tool_result') {
        try {
          JSON.parse(row.text);
        } catch {
          problem('JSON carrier text is not valid JSON');
        }
      }
      spec.check?.(row, problem);
      rows[key].push(row);
    });
    if (lines.length < spec.min)
      problems.push(`${spec.name}: ${lines.length} rows, need at least ${spec.min}`);
  }
  return { rows, problems };
}

/** Exit 1 with the problems on stderr, or print the set's all-clear line. */
export function finish(problems, ok) {
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  out(ok);
}
