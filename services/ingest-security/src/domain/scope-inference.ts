import type { MemoryType, Scope } from '@engram/memory-model';
import { DEFAULT_SCOPE_BY_TYPE } from '@engram/security-rules';

/** Where the scope of a write without an explicit scope came from (recorded in the verdict). */
export type ScopeSource =
  'explicit' | 'metadata_scope_hint' | 'metadata_tags' | 'content_cue' | 'type_default';

export interface InferredScope {
  readonly scope: Scope;
  readonly source: Exclude<ScopeSource, 'explicit'>;
}

/*
 * Cues, checked in this order; the first that decides wins, and within one cue a private signal
 * beats a global one (the safe side):
 *  1. metadata.scope_hint or metadata.visibility: "private" | "personal" -> agent-private;
 *     "global" | "public" | "project" | "project-wide" | "team-wide" -> global.
 *  2. metadata.tags (strings): private, personal, confidential, pii, secret, draft, scratch ->
 *     agent-private; global, public, project-wide, team-wide, convention, policy, team-convention,
 *     shared-knowledge -> global.
 *  3. Content: "note to self", "my personal|private ...", "(keep|this is) private|confidential",
 *     "just for me" -> agent-private; "(all|every) agents? (should|must|need to)", "project-wide",
 *     "team-wide", "company-wide", "for everyone on the team", "team convention", "house rule"
 *     -> global.
 *  4. Otherwise the type's default scope (docs/architecture.md, Memory types and scopes).
 * agent-shared is never inferred: it needs an explicit shared_with list. An inferred global goes
 * through decideWrite like a default one, so untrusted or unknown content is capped to
 * agent-private and a principal not allowed global is capped too (docs/architecture.md, Authorization).
 */
const PRIVATE_WORDS = new Set(['private', 'personal', 'confidential', 'pii', 'secret', 'draft', 'scratch']);
const GLOBAL_WORDS = new Set([
  'global',
  'public',
  'project',
  'project-wide',
  'team-wide',
  'convention',
  'policy',
  'team-convention',
  'shared-knowledge',
]);

const PRIVATE_CONTENT =
  /\bnote to self\b|\bmy (?:own |personal |private )(?:notes?|reminders?|preferences?|details|data)\b|\b(?:keep (?:this|it) (?:private|confidential)|this is (?:private|confidential)|just for me)\b/i;
const GLOBAL_CONTENT =
  /\b(?:all|every) agents? (?:should|must|need to|have to)\b|\b(?:project|team|company|organi[sz]ation)-wide\b|\bfor everyone on the team\b|\bteam convention\b|\bhouse rule\b/i;

function classify(word: string): Scope | undefined {
  const w = word.trim().toLowerCase();
  if (PRIVATE_WORDS.has(w)) return 'agent-private';
  if (GLOBAL_WORDS.has(w)) return 'global';
  return undefined;
}

function fromHint(metadata: Readonly<Record<string, unknown>>): Scope | undefined {
  for (const key of ['scope_hint', 'visibility']) {
    const v = metadata[key];
    if (typeof v === 'string') {
      const s = classify(v);
      if (s) return s;
    }
  }
  return undefined;
}

function fromTags(metadata: Readonly<Record<string, unknown>>): Scope | undefined {
  const tags = metadata['tags'];
  if (!Array.isArray(tags)) return undefined;
  let found: Scope | undefined;
  for (const t of tags as unknown[]) {
    if (typeof t !== 'string') continue;
    const s = classify(t);
    if (s === 'agent-private') return s;
    found ??= s;
  }
  return found;
}

function fromContent(content: string): Scope | undefined {
  const head = content.slice(0, 4000);
  if (PRIVATE_CONTENT.test(head)) return 'agent-private';
  if (GLOBAL_CONTENT.test(head)) return 'global';
  return undefined;
}

/** The scope of a write that names none: from clear cues, else the type's default. */
export function inferScope(
  memoryType: MemoryType,
  content: string,
  metadata: Readonly<Record<string, unknown>> | undefined,
): InferredScope {
  const meta = metadata ?? {};
  const hint = fromHint(meta);
  if (hint) return { scope: hint, source: 'metadata_scope_hint' };
  const tag = fromTags(meta);
  if (tag) return { scope: tag, source: 'metadata_tags' };
  const cue = fromContent(content);
  if (cue) return { scope: cue, source: 'content_cue' };
  return { scope: DEFAULT_SCOPE_BY_TYPE[memoryType], source: 'type_default' };
}
