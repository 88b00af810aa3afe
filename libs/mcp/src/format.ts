import type { Memory, Run, WriteResult } from '@engram/client';

/**
 * The text a model reads. One header line per memory with what decides whether to trust and use it
 * (id, type, scope, trust label, author, scores, content flags), then its content, indented. The
 * full JSON is in structuredContent; this is the readable summary of it.
 */
export function memoryLine(m: Memory, index?: number): string {
  const facts = [
    `id=${m.id}`,
    `type=${m.memory_type}`,
    `scope=${m.scope}`,
    `trust=${m.trust_level}`,
    `author=${m.agent_id}`,
  ];
  if (m.score !== undefined) facts.push(`score=${round(m.score)}`);
  if (m.relevance_score !== undefined) facts.push(`relevance=${round(m.relevance_score)}`);
  if (m.effectiveness_score !== undefined) facts.push(`effectiveness=${round(m.effectiveness_score)}`);
  if (m.tokens !== undefined) facts.push(`tokens=${m.tokens}`);
  if (m.content_flags.length > 0) facts.push(`flags=${m.content_flags.join(',')}`);
  if (m.is_deprecated) facts.push('deprecated');
  const head = index === undefined ? facts.join(' ') : `${index + 1}. ${facts.join(' ')}`;
  return `${head}\n${indent(m.content)}`;
}

/** A list of memories under a one-line header; "none" when empty, so the model knows it asked right. */
export function memoryList(header: string, memories: readonly Memory[]): string {
  if (memories.length === 0) return `${header}: none found.`;
  return [`${header}: ${memories.length}`, ...memories.map((m, i) => memoryLine(m, i))].join('\n');
}

export function writeLine(verb: string, w: WriteResult): string {
  const facts = [`id=${w.id}`, `type=${w.memory_type}`, `scope=${w.scope}`, `trust=${w.trust_level}`];
  if (w.namespace !== 'default') facts.push(`namespace=${w.namespace}`);
  if (w.content_flags.length > 0) facts.push(`flags=${w.content_flags.join(',')}`);
  const what = w.deduplicated ? 'already stored (same content), kept the existing memory' : verb;
  return `${what}: ${facts.join(' ')}`;
}

export function runLine(r: Run): string {
  const facts = [
    `run_id=${r.run_id}`,
    `agent=${r.agent_id}`,
    `task_type=${r.task_type}`,
    `status=${r.status}`,
    `memories_used=${r.memory_ids_used.length}`,
  ];
  if (r.success !== undefined) facts.push(`success=${r.success}`);
  if (r.reflection_id !== undefined) facts.push(`reflection_id=${r.reflection_id}`);
  return facts.join(' ');
}

function round(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `   ${l}`)
    .join('\n');
}
