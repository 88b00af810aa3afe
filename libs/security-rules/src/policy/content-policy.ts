import type { Scope } from '@engram/memory-model';
import type { DetectionCategory } from '../detection.ts';
import { isPolicyAction, moreSevere, type PolicyAction } from './policy-action.ts';

/** The per-category actions (CONTENT_POLICY_*), as configured. */
export interface ContentPolicy {
  readonly pii: PolicyAction;
  readonly secrets: PolicyAction;
  readonly injection: PolicyAction;
  /** CONTENT_POLICY_INJECTION_GLOBAL_SCOPE; `inherit` uses `injection`. */
  readonly injectionGlobalScope: PolicyAction | 'inherit';
}

export const DEFAULT_CONTENT_POLICY: ContentPolicy = Object.freeze({
  pii: 'flag',
  secrets: 'reject',
  injection: 'flag',
  injectionGlobalScope: 'reject',
});

/** The CONTENT_POLICY_* settings, as loaded. */
export interface ContentPolicySettings {
  readonly contentPolicyPii: string;
  readonly contentPolicySecrets: string;
  readonly contentPolicyInjection: string;
  readonly contentPolicyInjectionGlobalScope: string;
}

/** Builds the policy from the loaded settings (values are validated by the config schema). */
export function contentPolicyOf(config: ContentPolicySettings): ContentPolicy {
  const pick = (v: string, d: PolicyAction): PolicyAction => (isPolicyAction(v) ? v : d);
  return Object.freeze({
    pii: pick(config.contentPolicyPii, DEFAULT_CONTENT_POLICY.pii),
    secrets: pick(config.contentPolicySecrets, DEFAULT_CONTENT_POLICY.secrets),
    injection: pick(config.contentPolicyInjection, DEFAULT_CONTENT_POLICY.injection),
    injectionGlobalScope:
      config.contentPolicyInjectionGlobalScope === 'inherit'
        ? 'inherit'
        : pick(config.contentPolicyInjectionGlobalScope, 'reject'),
  });
}

/**
 * The action for one category at one scope. An injection entering global scope gets the more severe
 * of CONTENT_POLICY_INJECTION and CONTENT_POLICY_INJECTION_GLOBAL_SCOPE (the global setting
 * escalates, it never softens); `inherit` makes global writes use CONTENT_POLICY_INJECTION alone.
 */
export function actionFor(policy: ContentPolicy, category: DetectionCategory, scope: Scope): PolicyAction {
  switch (category) {
    case 'pii':
      return policy.pii;
    case 'secrets':
      return policy.secrets;
    case 'injection':
      if (scope === 'global' && policy.injectionGlobalScope !== 'inherit') {
        return moreSevere(policy.injection, policy.injectionGlobalScope);
      }
      return policy.injection;
  }
}
