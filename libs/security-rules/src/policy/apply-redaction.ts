import type { Detection } from '../detection.ts';
import { redact, type RedactionSpan } from './redact.ts';
import type { ScannableWrite } from './scan-fields.ts';

function spansByField(detections: readonly Detection[]): Map<string, RedactionSpan[]> {
  const map = new Map<string, RedactionSpan[]>();
  for (const d of detections) {
    const list = map.get(d.field) ?? [];
    list.push({ start: d.start ?? 0, end: d.end ?? Number.MAX_SAFE_INTEGER, type: d.type });
    map.set(d.field, list);
  }
  return map;
}

function redactValue(value: unknown, path: string, spans: Map<string, RedactionSpan[]>): unknown {
  if (typeof value === 'string') {
    const s = spans.get(path);
    return s ? redact(value, s) : value;
  }
  if (Array.isArray(value)) return value.map((v, i) => redactValue(v, `${path}[${i}]`, spans));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, `${path}.${k}`, spans);
    return out;
  }
  return value;
}

/**
 * The write with every span of the given detections replaced by `[REDACTED:<type>]`, in content,
 * error_pattern and metadata strings. A detection without a span redacts its whole field.
 */
export function applyRedaction<W extends ScannableWrite>(write: W, detections: readonly Detection[]): W {
  if (detections.length === 0) return write;
  const spans = spansByField(detections);
  const field = (name: string, text: string | undefined) => {
    const s = spans.get(name);
    return text === undefined || !s ? text : redact(text, s);
  };
  return {
    ...write,
    content: field('content', write.content) ?? write.content,
    error_pattern: field('error_pattern', write.error_pattern),
    metadata:
      write.metadata === undefined
        ? undefined
        : (redactValue(write.metadata, 'metadata', spans) as Record<string, unknown>),
  };
}
