import { actingAgent, isPrivileged, mayAccessOwned, type Principal } from '@engram/auth';
import {
  ConflictError,
  decodeCursor,
  encodeCursor,
  InvalidArgumentError,
  NotFoundError,
  refuseCursor,
  type FieldViolation,
} from '@engram/errors';
import { ID_MAX_LENGTH, LIST_ENTRY_MAX_LENGTH, LIST_MAX_ENTRIES } from '@engram/security-rules';
import {
  assertFeatureTransition,
  FEATURE_TRANSITIONS,
  isFeatureStatus,
  type Feature,
} from './feature-status.ts';
import { FieldChecks } from './field-checks.ts';
import { screenFreeText, type FreeTextDeps } from './free-text-screen.ts';
import type { Actor, FeatureOwners, FeaturePage, FeatureRepository } from './ports.ts';

export const FEATURE_DESCRIPTION_MAX_LENGTH = 10_000;
export const FEATURE_PAGE_SIZE = 50;

export interface FeatureDeps extends FreeTextDeps {
  readonly features: FeatureRepository;
}

const actorOf = (p: Principal, agentId: string): Actor => ({
  projectId: p.projectId,
  agentId,
  apiKeyId: p.keyId,
});

/**
 * Creates a pending feature owned by the acting agent (agent_id, which the key must be able to act
 * as; by default the bound agent or the key itself). Description and test steps are screened like a
 * memory's content before anything is stored.
 */
export async function createFeature(
  deps: FeatureDeps,
  principal: Principal,
  req: { featureId: string; description: string; testSteps: readonly string[]; agentId: string },
): Promise<Feature> {
  new FieldChecks()
    .id('feature_id', req.featureId, ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .text('description', req.description, FEATURE_DESCRIPTION_MAX_LENGTH)
    .list('test_steps', req.testSteps, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const actor = actorOf(principal, agentId);
  const texts = await screenFreeText(deps, principal, actor, 'create_feature', {
    description: req.description,
    test_steps: [...req.testSteps],
  });
  const inserted = await deps.features.insert(actor, {
    featureId: req.featureId,
    agentId,
    description: texts.description,
    testSteps: texts.test_steps,
  });
  if (!inserted) throw new ConflictError(`feature ${req.featureId} already exists`, 'ALREADY_EXISTS');
  return getFeature(deps, principal, req.featureId);
}

/**
 * A feature of the project that belongs to an agent the key may act as (or any, for a privileged
 * key); anything else is 404, as if it did not exist.
 */
export async function getFeature(
  deps: { features: FeatureRepository },
  principal: Principal,
  featureId: string,
): Promise<Feature> {
  new FieldChecks().id('feature_id', featureId, ID_MAX_LENGTH, true).throwIfAny();
  const f = await deps.features.get(principal.projectId, featureId);
  if (!f || !mayAccessOwned(principal, f.agentId)) throw new NotFoundError('feature not found');
  return f;
}

/** Whose features a key lists: those it may access (mayAccessOwned), as a filter for the SQL. */
export function featureOwners(principal: Principal): FeatureOwners {
  if (isPrivileged(principal)) return 'all';
  if (principal.boundAgentId !== undefined) return { agents: [principal.boundAgentId] };
  if (principal.anyAgent === true) return 'all';
  return { agents: [`key:${principal.keyId}`, ...(principal.agentIds ?? [])] };
}

/**
 * mark_complete (verified_by required) and mark_failed (reason required); see feature-status.ts.
 * Only on a feature the key may access (else 404); verified_by and reason are screened first.
 */
export async function markFeature(
  deps: FeatureDeps,
  principal: Principal,
  req: { featureId: string; to: 'complete' | 'failed'; verifiedBy: string; reason: string },
): Promise<Feature> {
  const checks = new FieldChecks().id('feature_id', req.featureId, ID_MAX_LENGTH, true);
  if (req.to === 'complete')
    checks.text('verified_by', req.verifiedBy, LIST_ENTRY_MAX_LENGTH, { required: true, lineBreaks: false });
  else checks.text('reason', req.reason, LIST_ENTRY_MAX_LENGTH, { required: true });
  checks.throwIfAny();
  const current = await getFeature(deps, principal, req.featureId);
  assertFeatureTransition(current.status, req.to);
  const actor = actorOf(principal, current.agentId);
  const text = await screenFreeText(
    deps,
    principal,
    actor,
    req.to === 'complete' ? 'complete_feature' : 'fail_feature',
    req.to === 'complete' ? { verified_by: req.verifiedBy } : { reason: req.reason },
  );
  const moved = await deps.features.transition(actor, req.featureId, FEATURE_TRANSITIONS[req.to], {
    status: req.to,
    failureReason: req.to === 'failed' ? (text.reason ?? req.reason) : null,
    verifiedBy: req.to === 'complete' ? (text.verified_by ?? req.verifiedBy) : null,
  });
  if (!moved) {
    // Another request moved it first; report from the state it is in now.
    assertFeatureTransition((await getFeature(deps, principal, req.featureId)).status, req.to);
    throw new ConflictError(
      'feature changed concurrently; retry',
      'CONCURRENT_CHANGE',
      'FAILED_PRECONDITION',
    );
  }
  return moved;
}

/**
 * Features by feature_id, optionally of one status, of the agents the key may act as (featureOwners);
 * `cursor` is the opaque next_cursor of a page.
 */
export async function listFeatures(
  deps: { features: FeatureRepository },
  principal: Principal,
  req: { status?: string | undefined; cursor: string },
): Promise<FeaturePage> {
  const status = req.status === '' ? undefined : req.status;
  if (status !== undefined && !isFeatureStatus(status)) {
    throw new InvalidArgumentError('request failed validation', [
      { field: 'status', description: 'must be pending, complete or failed', reason: 'INVALID_VALUE' },
    ]);
  }
  let after: string | undefined;
  if (req.cursor !== '') {
    // The cursor is the base64url of the last feature_id of the previous page: a valid feature id.
    const violations: FieldViolation[] = [];
    after = decodeCursor('cursor', req.cursor, violations);
    if (after !== undefined && new FieldChecks().id('cursor', after, ID_MAX_LENGTH, true).hasAny())
      refuseCursor('cursor', violations);
    if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  }
  const rows = await deps.features.list(
    principal.projectId,
    featureOwners(principal),
    status,
    after,
    FEATURE_PAGE_SIZE + 1,
  );
  const page = rows.slice(0, FEATURE_PAGE_SIZE);
  const last = page[page.length - 1];
  return {
    features: page,
    nextCursor: rows.length > FEATURE_PAGE_SIZE && last ? encodeCursor(last.featureId) : '',
  };
}
