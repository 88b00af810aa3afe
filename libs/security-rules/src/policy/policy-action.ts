/** What the policy does about a detection, least severe first. */
export const POLICY_ACTIONS = ['allow', 'flag', 'redact', 'reject'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

export function isPolicyAction(v: unknown): v is PolicyAction {
  return typeof v === 'string' && (POLICY_ACTIONS as readonly string[]).includes(v);
}

export function severity(a: PolicyAction): number {
  return POLICY_ACTIONS.indexOf(a);
}

/** The more severe of two actions (reject > redact > flag > allow). */
export function moreSevere(a: PolicyAction, b: PolicyAction): PolicyAction {
  return severity(a) >= severity(b) ? a : b;
}
