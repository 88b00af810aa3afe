import { createHash } from 'node:crypto';
import type { EngramConfig } from '@engram/config';
import { canonicalJson } from '@engram/integrity';
import { INJECTION_MODEL_DATA } from './model/injection-model.data.ts';
import { classifierEscalationOf } from './stage4/classifier-of-config.ts';

/**
 * Version of the scanner rules and of the learned injection signal; bump the date part with every
 * change to a detection rule (a retrained model changes its id, so the version follows by itself).
 */
export const SCANNER_RULES_VERSION = `stages1-4-2026.12.01.2+model.${INJECTION_MODEL_DATA.id}`;

/** The policy settings that decide a verdict; their hash is the policy_version. */
export function policySettings(config: EngramConfig) {
  return {
    content_policy: {
      pii: config.contentPolicyPii,
      secrets: config.contentPolicySecrets,
      injection: config.contentPolicyInjection,
      injection_global_scope: config.contentPolicyInjectionGlobalScope,
    },
    limits: {
      content_max_length: config.contentMaxLength,
      metadata_max_depth: config.metadataMaxDepth,
      metadata_max_keys: config.metadataMaxKeys,
    },
    llm_classifier: {
      enabled: config.enableLlmInjectionClassifier,
      escalation: classifierEscalationOf(config),
      model: config.injectionClassifierModel,
      base_url: config.injectionClassifierBaseUrl ?? null,
      threshold: config.injectionClassifierConfidenceThreshold,
    },
    enable_trust_levels: config.enableTrustLevels,
    scanner_rules_version: SCANNER_RULES_VERSION,
  };
}

/** sha256 of the canonical JSON of the policy settings and the scanner rules version (docs/architecture.md, The write path). */
export function computePolicyVersion(config: EngramConfig): string {
  return createHash('sha256')
    .update(canonicalJson(policySettings(config)))
    .digest('hex');
}
