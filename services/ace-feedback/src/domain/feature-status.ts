import { ConflictError } from '@engram/errors';

/**
 * Feature states (the specification names only mark_complete and mark_failed; the rest is ours):
 *
 *   (create)  -> pending
 *   pending   --mark_complete(verified_by)--> complete
 *   pending   --mark_failed(reason)---------> failed
 *   failed    --mark_complete(verified_by)--> complete   (fixed, then verified)
 *   complete  --mark_failed(reason)---------> failed     (a regression: a test step fails again)
 *   complete  --mark_complete--> refused, failed --mark_failed--> refused
 *                                (409 FAILED_PRECONDITION INVALID_TRANSITION: nothing changes)
 */
export const FEATURE_STATUSES = ['pending', 'complete', 'failed'] as const;
export type FeatureStatus = (typeof FEATURE_STATUSES)[number];

export function isFeatureStatus(v: string): v is FeatureStatus {
  return (FEATURE_STATUSES as readonly string[]).includes(v);
}

/** The states each target may be reached from. */
export const FEATURE_TRANSITIONS: Readonly<Record<'complete' | 'failed', readonly FeatureStatus[]>> = {
  complete: ['pending', 'failed'],
  failed: ['pending', 'complete'],
};

export interface Feature {
  readonly featureId: string;
  /** The owning agent (docs/decisions.md): only a key that may act as it, or a privileged key, sees it. */
  readonly agentId: string;
  readonly description: string;
  readonly testSteps: readonly string[];
  readonly status: FeatureStatus;
  readonly failureReason: string | null;
  readonly verifiedBy: string | null;
  readonly updatedAt: Date;
}

export interface NewFeature {
  readonly featureId: string;
  readonly agentId: string;
  readonly description: string;
  readonly testSteps: readonly string[];
}

/** Refuses a transition the table above does not allow. */
export function assertFeatureTransition(from: FeatureStatus, to: 'complete' | 'failed'): void {
  if (!FEATURE_TRANSITIONS[to].includes(from)) {
    throw new ConflictError(
      `feature is ${from}; it cannot be marked ${to} again`,
      'INVALID_TRANSITION',
      'FAILED_PRECONDITION',
    );
  }
}
