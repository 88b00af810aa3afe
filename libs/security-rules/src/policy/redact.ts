/** A span of one text to replace, with the detection type that names the replacement. */
export interface RedactionSpan {
  readonly start: number;
  readonly end: number;
  readonly type: string;
}

export function redactionToken(type: string): string {
  return `[REDACTED:${type}]`;
}

/**
 * Replaces each span with `[REDACTED:<type>]`. Overlapping or touching spans are merged into one
 * replacement (named after the span that starts first; on a tie, the longer one), so no part of
 * any matched text survives and tokens never nest. Spans outside the text are clipped.
 */
export function redact(text: string, spans: readonly RedactionSpan[]): string {
  const sorted = spans
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(text.length, s.end), type: s.type }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  if (sorted.length === 0) return text;
  const merged: { start: number; end: number; type: string }[] = [];
  for (const s of sorted) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  let out = '';
  let pos = 0;
  for (const s of merged) {
    out += text.slice(pos, s.start) + redactionToken(s.type);
    pos = s.end;
  }
  return out + text.slice(pos);
}
