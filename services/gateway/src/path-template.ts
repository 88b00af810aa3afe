/**
 * Path templates of google.api.http (google/api/http.proto):
 *
 *   Template = "/" Segments [ Verb ] ;
 *   Segments = Segment { "/" Segment } ;
 *   Segment  = "*" | "**" | LITERAL | Variable ;
 *   Variable = "{" FieldPath [ "=" Segments ] "}" ;
 *   FieldPath = IDENT { "." IDENT } ;
 *   Verb     = ":" LITERAL ;
 *
 * A template is flattened into a list of segments; each variable covers a range of them. `{var}`
 * is `{var=*}`. `**` matches zero or more segments and must be the last segment.
 */

export type Segment =
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'deep' };

export interface TemplateVariable {
  /** The field path, e.g. ["session_id"] or ["item", "id"]. */
  readonly fieldPath: readonly string[];
  /** First segment index covered by the variable. */
  readonly start: number;
  /** One past the last segment index covered by the variable. */
  readonly end: number;
}

export interface PathTemplate {
  readonly source: string;
  readonly segments: readonly Segment[];
  readonly variables: readonly TemplateVariable[];
  readonly verb: string | undefined;
}

export class PathTemplateError extends Error {
  override readonly name = 'PathTemplateError';
  constructor(source: string, problem: string) {
    super(`invalid path template ${JSON.stringify(source)}: ${problem}`);
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LITERAL = /^[A-Za-z0-9\-._~!$&'()+,;=@%]+$/;

export function parsePathTemplate(source: string): PathTemplate {
  if (!source.startsWith('/')) throw new PathTemplateError(source, 'must start with "/"');
  let body = source.slice(1);
  let verb: string | undefined;
  const lastSlash = body.lastIndexOf('/');
  const colon = body.indexOf(':', lastSlash + 1);
  if (colon >= 0 && !body.slice(colon).includes('}')) {
    verb = body.slice(colon + 1);
    body = body.slice(0, colon);
    if (!LITERAL.test(verb)) throw new PathTemplateError(source, 'invalid verb');
  }
  const segments: Segment[] = [];
  const variables: TemplateVariable[] = [];
  for (const part of splitTopLevel(source, body)) {
    if (part.startsWith('{')) {
      if (!part.endsWith('}')) throw new PathTemplateError(source, `unterminated variable ${part}`);
      const inner = part.slice(1, -1);
      const eq = inner.indexOf('=');
      const fieldPath = (eq < 0 ? inner : inner.slice(0, eq)).split('.');
      if (!fieldPath.every((p) => IDENT.test(p))) {
        throw new PathTemplateError(source, `invalid field path in ${part}`);
      }
      if (variables.some((v) => v.fieldPath.join('.') === fieldPath.join('.'))) {
        throw new PathTemplateError(source, `variable ${fieldPath.join('.')} bound twice`);
      }
      const start = segments.length;
      const sub = eq < 0 ? '*' : inner.slice(eq + 1);
      for (const s of sub.split('/')) {
        if (s.startsWith('{')) throw new PathTemplateError(source, 'nested variables');
        segments.push(parseSegment(source, s));
      }
      variables.push({ fieldPath, start, end: segments.length });
    } else {
      segments.push(parseSegment(source, part));
    }
  }
  const deep = segments.findIndex((s) => s.kind === 'deep');
  if (deep >= 0 && deep !== segments.length - 1) {
    throw new PathTemplateError(source, '"**" must be the last segment');
  }
  return { source, segments, variables, verb };
}

/** Splits on "/" outside braces. */
function splitTopLevel(source: string, body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of body) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (depth < 0 || depth > 1) throw new PathTemplateError(source, 'unbalanced braces');
    if (ch === '/' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new PathTemplateError(source, 'unbalanced braces');
  parts.push(cur);
  return parts;
}

function parseSegment(source: string, s: string): Segment {
  if (s === '*') return { kind: 'wildcard' };
  if (s === '**') return { kind: 'deep' };
  if (!LITERAL.test(s)) throw new PathTemplateError(source, `invalid segment ${JSON.stringify(s)}`);
  return { kind: 'literal', value: s };
}

/** Raw (still percent-encoded) values of the variables of a matched template, in template order. */
export type RawBindings = readonly { readonly variable: TemplateVariable; readonly raw: string[] }[];

/**
 * Matches raw path segments (the request path after the leading "/", split on "/", still
 * percent-encoded). Returns the raw variable bindings, or undefined when the template does not match.
 */
export function matchPathTemplate(t: PathTemplate, rawSegments: readonly string[]): RawBindings | undefined {
  let segs = rawSegments;
  if (t.verb !== undefined) {
    const last = segs[segs.length - 1];
    const suffix = `:${t.verb}`;
    if (last === undefined || !last.endsWith(suffix)) return undefined;
    segs = [...segs.slice(0, -1), last.slice(0, -suffix.length)];
  }
  const hasDeep = t.segments[t.segments.length - 1]?.kind === 'deep';
  if (hasDeep ? segs.length < t.segments.length - 1 : segs.length !== t.segments.length) return undefined;
  for (let i = 0; i < t.segments.length; i++) {
    const seg = t.segments[i];
    const raw = segs[i];
    if (seg === undefined) return undefined;
    if (seg.kind === 'deep') break;
    if (raw === undefined || raw === '') return undefined;
    if (seg.kind === 'literal' && seg.value !== raw && seg.value !== safeDecode(raw)) return undefined;
  }
  return t.variables.map((variable) => {
    const covered = t.segments[variable.end - 1]?.kind === 'deep' ? segs.length : variable.end;
    return { variable, raw: segs.slice(variable.start, covered) };
  });
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * Percent-decodes a bound variable. A single-segment variable decodes everything (%2F included); a
 * multi-segment one keeps %2F encoded so the segment structure stays visible (reserved expansion).
 * Throws URIError on malformed percent-encoding.
 */
export function decodeVariable(raw: readonly string[]): string {
  if (raw.length === 1) return decodeURIComponent(raw[0] ?? '');
  return raw.map((s) => s.split(/%2F/i).map(decodeURIComponent).join('%2F')).join('/');
}

/** Literal beats variable beats "**"; a segment a "**" matched as empty sits between the two. */
function rank(seg: Segment | undefined): number {
  if (seg === undefined) return 2;
  return seg.kind === 'literal' ? 0 : seg.kind === 'wildcard' ? 1 : 3;
}

/**
 * Orders two templates that both match one path: negative when `a` is more specific. Literal
 * segments beat variables, which beat "**", compared from the left; a verb beats no verb.
 */
export function compareSpecificity(a: PathTemplate, b: PathTemplate): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const diff = rank(a.segments[i]) - rank(b.segments[i]);
    if (diff !== 0) return diff;
  }
  return (b.verb === undefined ? 0 : 1) - (a.verb === undefined ? 0 : 1);
}
