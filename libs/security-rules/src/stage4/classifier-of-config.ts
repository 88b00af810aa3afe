import { ChatCompletionsClassifier } from './chat-completions-classifier.ts';
import { contentPolicyOf, type ContentPolicy, type ContentPolicySettings } from '../policy/content-policy.ts';
import type { ClassifierEscalation } from '../policy/screen-content.ts';
import type { InjectionClassifier } from './injection-classifier.ts';

/** The settings stage 4 reads (ENABLE_LLM_INJECTION_CLASSIFIER, INJECTION_CLASSIFIER_*). */
export interface ClassifierSettings {
  readonly enableLlmInjectionClassifier: boolean;
  /** INJECTION_CLASSIFIER_ESCALATION. */
  readonly injectionClassifierEscalation: 'auto' | ClassifierEscalation | 'off';
  readonly injectionClassifierBaseUrl?: string | undefined;
  readonly injectionClassifierApiKey?: string | undefined;
  readonly injectionClassifierModel: string;
  readonly injectionClassifierTimeoutMs: number;
}

/**
 * Which writes stage 4 is asked about, or off. `auto` (the default): the specification's conditions
 * when ENABLE_LLM_INJECTION_CLASSIFIER is on; only uncertain untrusted content when just a classifier
 * URL is configured (the operator named a classifier, and asked for no more); off otherwise.
 */
export function classifierEscalationOf(config: ClassifierSettings): ClassifierEscalation | 'off' {
  const chosen = config.injectionClassifierEscalation;
  if (chosen !== 'auto') return chosen;
  if (config.enableLlmInjectionClassifier) return 'conditions';
  return config.injectionClassifierBaseUrl ? 'uncertain' : 'off';
}

/** Stage 4 as configured: the classifier and which writes it is asked about, or undefined when off. */
export interface Stage4 {
  readonly classifier: InjectionClassifier;
  readonly escalation: ClassifierEscalation;
}

/**
 * Stage 4 as configured: undefined when off; a chat-completions classifier otherwise. Every
 * service that screens text builds it here, so memory writes and the free text of sessions, features
 * and runs are judged by the same model under the same settings.
 */
export function stage4Of(config: ClassifierSettings): Stage4 | undefined {
  const escalation = classifierEscalationOf(config);
  if (escalation === 'off') return undefined;
  if (!config.injectionClassifierBaseUrl) {
    throw new Error(`stage 4 (${escalation}) requires INJECTION_CLASSIFIER_BASE_URL`);
  }
  const classifier = new ChatCompletionsClassifier({
    baseUrl: config.injectionClassifierBaseUrl,
    apiKey: config.injectionClassifierApiKey,
    model: config.injectionClassifierModel,
    timeoutMs: config.injectionClassifierTimeoutMs,
  });
  return { classifier, escalation };
}

/** The classifier of stage4Of alone (asked under its escalation by whoever passes both on). */
export function injectionClassifierOf(config: ClassifierSettings): InjectionClassifier | undefined {
  return stage4Of(config)?.classifier;
}

/** The screening settings every service that screens text shares (ingest-security, ace-feedback). */
export interface ScreeningSettings {
  /** CONTENT_POLICY_*. */
  readonly policy: ContentPolicy;
  readonly classifier?: InjectionClassifier | undefined;
  readonly classifierEscalation?: ClassifierEscalation | undefined;
  /** INJECTION_CLASSIFIER_CONFIDENCE_THRESHOLD. */
  readonly classifierThreshold: number;
}

/** CONTENT_POLICY_* and stage 4 as configured, in the shape the write pipeline and ace-feedback take. */
export function screeningSettingsOf(
  config: ClassifierSettings & ContentPolicySettings & { injectionClassifierConfidenceThreshold: number },
): ScreeningSettings {
  const stage4 = stage4Of(config);
  return {
    policy: contentPolicyOf(config),
    classifier: stage4?.classifier,
    classifierEscalation: stage4?.escalation,
    classifierThreshold: config.injectionClassifierConfidenceThreshold,
  };
}
