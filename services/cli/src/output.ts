/**
 * What verbs print on stdout: text for people by default, one JSON document with --json. Errors and
 * progress never go here (stderr), so stdout can be piped into another program.
 */
import type { Memory } from '@engram/proto/engram/memory/v1/memory';

/** Writes the JSON form with --json, the text otherwise; one trailing newline. */
export function emit(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write((json ? JSON.stringify(value) : text) + '\n');
}

/** A text on one line, cut to max characters (an ellipsis says it was cut). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** A memory for people: its label, one field a line, then its content. */
export function memoryText(m: Memory): string {
  const rows: [string, string | undefined][] = [
    ['id', m.id],
    ['agent', m.agent_id],
    ['type', m.memory_type],
    ['scope', m.scope + (m.shared_with.length > 0 ? ` (shared with ${m.shared_with.join(', ')})` : '')],
    ['trust', m.trust_level],
    ['namespace', m.namespace],
    ['created', m.created_at],
    ['flags', m.content_flags.join(', ') || undefined],
    ['integrity', m.integrity_status],
    ['deprecated', m.is_deprecated ? (m.deprecation_reason ?? 'yes') : undefined],
    ['session', m.session_id],
    ['entity', m.entity_id],
  ];
  const label = rows
    .filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '')
    .map(([k, v]) => `${k.padEnd(11)}${v}`);
  return [...label, '', m.content].join('\n');
}
