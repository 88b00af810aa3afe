import { ClassifierError } from './injection-classifier.ts';

function unfence(text: string): string {
  const t = text.trim();
  const fenced = /^```[A-Za-z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```$/.exec(t);
  if (fenced?.[1] !== undefined) return fenced[1].trim();
  // A JSON object somewhere in prose ("Here is my answer: {...}").
  const first = t.indexOf('{');
  const last = t.lastIndexOf('}');
  return first >= 0 && last > first ? t.slice(first, last + 1) : t;
}

/**
 * The confidence (0..1) that the text is an injection, from the model's reply
 * `{"injection": true|false, "confidence": 0..1}` (plain or in a ```json fence). When the model
 * answers injection=false, its confidence is confidence in "no", so the injection confidence is
 * 1 - confidence. Anything else is malformed.
 */
export function parseClassifierReply(content: unknown): number {
  if (typeof content !== 'string') throw new ClassifierError('malformed', 'reply has no text content');
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfence(content));
  } catch {
    throw new ClassifierError('malformed', 'reply is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new ClassifierError('malformed', 'reply is not an object');
  const { injection, confidence } = parsed as { injection?: unknown; confidence?: unknown };
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    throw new ClassifierError('malformed', 'confidence must be a number in [0, 1]');
  }
  if (typeof injection !== 'boolean') throw new ClassifierError('malformed', 'injection must be a boolean');
  return injection ? confidence : 1 - confidence;
}
