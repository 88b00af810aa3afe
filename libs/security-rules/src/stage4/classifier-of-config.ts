import { ChatCompletionsClassifier } from './chat-completions-classifier.ts';
import type { InjectionClassifier } from './injection-classifier.ts';

/** The settings stage 4 reads (ENABLE_LLM_INJECTION_CLASSIFIER, INJECTION_CLASSIFIER_*). */
export interface ClassifierSettings {
  readonly enableLlmInjectionClassifier: boolean;
  readonly injectionClassifierBaseUrl?: string | undefined;
  readonly injectionClassifierApiKey?: string | undefined;
  readonly injectionClassifierModel: string;
  readonly injectionClassifierTimeoutMs: number;
}

/**
 * Stage 4 as configured: undefined when disabled; a chat-completions classifier otherwise. Every
 * service that screens text builds it here, so memory writes and the free text of sessions, features
 * and runs are judged by the same model under the same settings.
 */
export function injectionClassifierOf(config: ClassifierSettings): InjectionClassifier | undefined {
  if (!config.enableLlmInjectionClassifier) return undefined;
  if (!config.injectionClassifierBaseUrl) {
    throw new Error('ENABLE_LLM_INJECTION_CLASSIFIER=true requires INJECTION_CLASSIFIER_BASE_URL');
  }
  return new ChatCompletionsClassifier({
    baseUrl: config.injectionClassifierBaseUrl,
    apiKey: config.injectionClassifierApiKey,
    model: config.injectionClassifierModel,
    timeoutMs: config.injectionClassifierTimeoutMs,
  });
}
