import type { Principal } from '@engram/auth';
import { SecurityRejectedError } from '@engram/errors';
import {
  screenContent,
  type ClassifierEscalation,
  type ContentPolicy,
  type InjectionClassifier,
} from '@engram/security-rules';
import type { Actor } from './ports.ts';

/** Records a refused text (SECURITY_REJECTED), in its own transaction: the refusal is the trail. */
export interface RejectionLog {
  record(actor: Actor, details: Record<string, unknown>): Promise<void>;
}

export interface FreeTextDeps {
  /** CONTENT_POLICY_*: the same actions the write pipeline applies to memories. */
  readonly policy: ContentPolicy;
  /** Stage 4 when enabled: it runs on these texts under the same conditions as on a memory write. */
  readonly classifier?: InjectionClassifier | undefined;
  readonly classifierThreshold?: number | undefined;
  /** INJECTION_CLASSIFIER_ESCALATION as resolved (stage4Of). */
  readonly classifierEscalation?: ClassifierEscalation | undefined;
  readonly rejections: RejectionLog;
}

/** Every string in a JSON value (a run evaluation may nest its notes), in order. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value !== '') out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) stringsOf(v, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) stringsOf(v, out);
  }
  return out;
}

/** At most this many detections travel in the 422 (as the write pipeline does). */
const MAX_ERROR_DETECTIONS = 20;
/** scanWrite reports where a finding is as `metadata.<path>`; the texts are passed as that object. */
const PREFIX = 'metadata.';

/**
 * Screens the free text of a progress session, a feature or a run evaluation before it is stored:
 * stages 2 and 3 (secrets, PII, injection), stage 4 (the LLM classifier, when enabled, on all the
 * texts together) and the content policy, exactly as for a memory written at agent scope with the
 * key's trust: stage 4 runs for untrusted and unknown keys and when stage 3 found something, and
 * rejects at the same confidence (stage 1, lengths and control characters, is the caller's field
 * checks). A reject records SECURITY_REJECTED and throws 422 SECURITY_REJECTED with the detections
 * (nothing is stored); otherwise the texts come back as they must be stored: redacted where the
 * policy says redact, unchanged for flag and allow (these records have no content_flags). `texts` is
 * any JSON object of the request's text fields; its keys name the fields in the detections.
 */
export async function screenFreeText<T extends Record<string, unknown>>(
  deps: FreeTextDeps,
  principal: Principal,
  actor: Actor,
  route: string,
  texts: T,
): Promise<T> {
  const judged = stringsOf(texts);
  const screened = await screenContent(
    { content: '', metadata: texts },
    { scope: 'agent-private', trustLevel: principal.trust },
    {
      policy: deps.policy,
      classifier: judged.length > 0 ? deps.classifier : undefined,
      classifierThreshold: deps.classifierThreshold,
      classifierEscalation: deps.classifierEscalation,
      classifierText: judged.join('\n'),
    },
  );
  // Stage 4 judges all the texts at once: its detection names every field that had text.
  const textFields = Object.keys(texts).filter((k) => stringsOf(texts[k]).length > 0);
  const fieldOf = (field: string) =>
    field.startsWith(PREFIX)
      ? field.slice(PREFIX.length)
      : field === 'content'
        ? textFields.join(', ')
        : field;
  if (screened.action === 'reject') {
    const fired = screened.detections.filter((d) => d.action === 'reject');
    const seen = new Set<string>();
    const unique = fired.filter((d) => {
      const key = `${d.category}:${d.type}:${d.field}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    await deps.rejections.record(actor, {
      reason: 'content_policy',
      route,
      categories: [...new Set(fired.map((d) => d.category))],
      types: [...new Set(fired.map((d) => `${d.category}:${d.type}`))],
      fields: [...new Set(fired.map((d) => fieldOf(d.field)))].slice(0, MAX_ERROR_DETECTIONS),
      detections_total: screened.detections.length,
      scope: 'agent-private',
      trust_level: principal.trust,
      classifier: { ...screened.classifier },
    });
    throw new SecurityRejectedError(
      `the content policy rejected this text (${[...new Set(unique.map((d) => fieldOf(d.field)))].join(', ')})`,
      unique.slice(0, MAX_ERROR_DETECTIONS).map((d) => ({
        category: d.category,
        type: d.type,
        action: d.action,
        stage: d.stage,
      })),
    );
  }
  return screened.write.metadata;
}
