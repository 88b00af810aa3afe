import { PermissionDeniedError } from '@engram/errors';
import { isLowTrust, isTrustLevel, type Scope, type TrustLevel } from '@engram/memory-model';
import { canWriteScope } from './authorization.ts';
import { contentRank, principalRank, type Principal } from './principal.ts';

export interface WriteDecisionInput {
  readonly principal: Principal;
  /** Requested content trust label; absent -> the principal's own level. */
  readonly trustLevel?: string | undefined;
  /** Explicit scope of the request, if any. */
  readonly scope?: Scope | undefined;
  /** Scope from inference or the memory type's default, used when no explicit scope is given. */
  readonly defaultScope: Scope;
  /** ENABLE_TRUST_LEVELS: internal principals may not write global. */
  readonly enableTrustLevels: boolean;
}

export interface WriteDecision {
  readonly trustLevel: TrustLevel;
  readonly scope: Scope;
  /** True when a default/inferred global was capped to agent-private. */
  readonly capped: boolean;
}

/**
 * Decides the stored trust label and scope of a write, checking it twice: the content's label is the
 * ceiling (untrusted/unknown content never reaches global; the label never exceeds the principal's
 * trust) and the principal's trust is the floor (it must be allowed the scope). An explicit scope
 * that breaks a rule is refused (403); a default or inferred one is capped to agent-private.
 */
export function decideWrite(input: WriteDecisionInput): WriteDecision {
  const { principal } = input;
  let trustLevel: TrustLevel;
  if (input.trustLevel === undefined || input.trustLevel === '') {
    trustLevel = principal.trust;
  } else if (!isTrustLevel(input.trustLevel)) {
    throw new PermissionDeniedError(
      `unknown trust_level ${JSON.stringify(input.trustLevel)}`,
      'TRUST_FORBIDDEN',
    );
  } else {
    trustLevel = input.trustLevel;
  }
  if (contentRank(trustLevel) > principalRank(principal.trust)) {
    throw new PermissionDeniedError('trust_level may not exceed the trust of the API key', 'TRUST_FORBIDDEN');
  }
  if (principal.trust === 'untrusted') trustLevel = 'untrusted';
  const lowContent = isLowTrust(trustLevel);

  if (input.scope !== undefined) {
    if (input.scope === 'global' && lowContent) {
      throw new PermissionDeniedError(
        'untrusted or unknown content can never be written to global scope',
        'SCOPE_FORBIDDEN',
      );
    }
    if (!canWriteScope(principal, input.scope, input.enableTrustLevels)) {
      throw new PermissionDeniedError(
        `this API key may not write ${input.scope} memories`,
        'SCOPE_FORBIDDEN',
      );
    }
    return { trustLevel, scope: input.scope, capped: false };
  }
  const scope = input.defaultScope;
  if ((scope === 'global' && lowContent) || !canWriteScope(principal, scope, input.enableTrustLevels)) {
    return { trustLevel, scope: 'agent-private', capped: true };
  }
  return { trustLevel, scope, capped: false };
}
