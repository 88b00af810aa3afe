import type { Principal } from '@engram/auth';
import { ConflictError, InvalidArgumentError, NotFoundError } from '@engram/errors';
import { ID_MAX_LENGTH, LIST_ENTRY_MAX_LENGTH, LIST_MAX_ENTRIES } from '@engram/security-rules';
import {
  assertFeatureTransition,
  FEATURE_TRANSITIONS,
  isFeatureStatus,
  type Feature,
} from './feature-status.ts';
import { FieldChecks } from './field-checks.ts';
import type { FeaturePage, FeatureRepository } from './ports.ts';

export const FEATURE_DESCRIPTION_MAX_LENGTH = 10_000;
export const FEATURE_PAGE_SIZE = 50;

const actorOf = (p: Principal) => ({
  projectId: p.projectId,
  agentId: p.boundAgentId ?? `key:${p.keyId}`,
  apiKeyId: p.keyId,
});

export async function createFeature(
  features: FeatureRepository,
  principal: Principal,
  req: { featureId: string; description: string; testSteps: readonly string[] },
): Promise<Feature> {
  new FieldChecks()
    .id('feature_id', req.featureId, ID_MAX_LENGTH, true)
    .text('description', req.description, FEATURE_DESCRIPTION_MAX_LENGTH)
    .list('test_steps', req.testSteps, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .throwIfAny();
  const inserted = await features.insert(actorOf(principal), req);
  if (!inserted) throw new ConflictError(`feature ${req.featureId} already exists`, 'ALREADY_EXISTS');
  return getFeature(features, principal, req.featureId);
}

export async function getFeature(
  features: FeatureRepository,
  principal: Principal,
  featureId: string,
): Promise<Feature> {
  new FieldChecks().id('feature_id', featureId, ID_MAX_LENGTH, true).throwIfAny();
  const f = await features.get(principal.projectId, featureId);
  if (!f) throw new NotFoundError('feature not found');
  return f;
}

/** mark_complete (verified_by required) and mark_failed (reason required); see feature-status.ts. */
export async function markFeature(
  features: FeatureRepository,
  principal: Principal,
  req: { featureId: string; to: 'complete' | 'failed'; verifiedBy: string; reason: string },
): Promise<Feature> {
  const checks = new FieldChecks().id('feature_id', req.featureId, ID_MAX_LENGTH, true);
  if (req.to === 'complete')
    checks.text('verified_by', req.verifiedBy, LIST_ENTRY_MAX_LENGTH, { required: true, lineBreaks: false });
  else checks.text('reason', req.reason, LIST_ENTRY_MAX_LENGTH, { required: true });
  checks.throwIfAny();
  const current = await getFeature(features, principal, req.featureId);
  assertFeatureTransition(current.status, req.to);
  const moved = await features.transition(actorOf(principal), req.featureId, FEATURE_TRANSITIONS[req.to], {
    status: req.to,
    failureReason: req.to === 'failed' ? req.reason : null,
    verifiedBy: req.to === 'complete' ? req.verifiedBy : null,
  });
  if (!moved) {
    // Another request moved it first; report from the state it is in now.
    assertFeatureTransition((await getFeature(features, principal, req.featureId)).status, req.to);
    throw new ConflictError(
      'feature changed concurrently; retry',
      'CONCURRENT_CHANGE',
      'FAILED_PRECONDITION',
    );
  }
  return moved;
}

/** Features by feature_id, optionally of one status; `cursor` is the opaque next_cursor of a page. */
export async function listFeatures(
  features: FeatureRepository,
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
    after = Buffer.from(req.cursor, 'base64url').toString('utf8');
    if (new FieldChecks().id('cursor', after, ID_MAX_LENGTH, true).hasAny()) {
      throw new InvalidArgumentError('request failed validation', [
        { field: 'cursor', description: 'is not a cursor this service issued', reason: 'INVALID_VALUE' },
      ]);
    }
  }
  const rows = await features.list(principal.projectId, status, after, FEATURE_PAGE_SIZE + 1);
  const page = rows.slice(0, FEATURE_PAGE_SIZE);
  const last = page[page.length - 1];
  return {
    features: page,
    nextCursor:
      rows.length > FEATURE_PAGE_SIZE && last
        ? Buffer.from(last.featureId, 'utf8').toString('base64url')
        : '',
  };
}
