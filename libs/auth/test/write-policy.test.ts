import assert from 'node:assert/strict';
import { PermissionDeniedError } from '@engram/errors';
import type { Scope } from '@engram/memory-model';
import { actingAgent, decideWrite, type Principal, type PrincipalTrust } from '../src/index.ts';

const principal = (trust: PrincipalTrust, boundAgentId?: string): Principal => ({
  projectId: 'p',
  keyId: 'k',
  trust,
  boundAgentId,
  instanceAdmin: false,
});

const reason = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof PermissionDeniedError ? err.reason : 'other';
  }
};

describe('write policy (docs/architecture.md, Authorization)', () => {
  // principal, requested trust label, explicit scope, default scope, ENABLE_TRUST_LEVELS -> scope or reason
  const table: [PrincipalTrust, string | undefined, Scope | undefined, Scope, boolean, string][] = [
    ['untrusted', undefined, undefined, 'global', false, 'agent-private'],
    ['untrusted', undefined, 'global', 'agent-private', false, 'SCOPE_FORBIDDEN'],
    ['untrusted', undefined, 'agent-shared', 'agent-private', false, 'SCOPE_FORBIDDEN'],
    ['untrusted', 'internal', undefined, 'agent-private', false, 'TRUST_FORBIDDEN'],
    ['internal', undefined, 'global', 'agent-private', false, 'global'],
    ['internal', undefined, 'global', 'agent-private', true, 'SCOPE_FORBIDDEN'],
    ['internal', undefined, undefined, 'global', true, 'agent-private'],
    ['internal', 'untrusted', 'global', 'agent-private', false, 'SCOPE_FORBIDDEN'],
    ['internal', 'unknown', undefined, 'global', false, 'agent-private'],
    ['internal', 'privileged', undefined, 'global', false, 'TRUST_FORBIDDEN'],
    ['privileged', undefined, 'global', 'agent-private', true, 'global'],
    ['system', 'untrusted', 'global', 'agent-private', false, 'SCOPE_FORBIDDEN'],
    ['system', undefined, undefined, 'global', false, 'global'],
  ];
  for (const [trust, label, scope, def, enable, expected] of table) {
    it(`${trust} key, label ${label ?? '(own)'}, scope ${scope ?? `(default ${def})`}, trust levels ${enable} -> ${expected}`, () => {
      const p = principal(trust);
      const outcome = reason(() =>
        decideWrite({ principal: p, trustLevel: label, scope, defaultScope: def, enableTrustLevels: enable }),
      );
      if (outcome === 'ok') {
        assert.equal(
          decideWrite({
            principal: p,
            trustLevel: label,
            scope,
            defaultScope: def,
            enableTrustLevels: enable,
          }).scope,
          expected,
        );
      } else {
        assert.equal(outcome, expected);
      }
    });
  }

  it('labels content with the principal trust by default, and forces untrusted for untrusted keys', () => {
    assert.equal(
      decideWrite({
        principal: principal('internal'),
        scope: undefined,
        defaultScope: 'agent-private',
        enableTrustLevels: false,
      }).trustLevel,
      'internal',
    );
    assert.equal(
      decideWrite({
        principal: principal('untrusted'),
        trustLevel: 'unknown',
        defaultScope: 'agent-private',
        enableTrustLevels: false,
      }).trustLevel,
      'untrusted',
    );
  });

  it('binds the acting agent of a bound key and refuses another', () => {
    assert.equal(actingAgent(principal('internal', 'a1'), undefined), 'a1');
    assert.equal(actingAgent(principal('internal', 'a1'), 'a1'), 'a1');
    assert.equal(
      reason(() => actingAgent(principal('internal', 'a1'), 'a2')),
      'AGENT_MISMATCH',
    );
    assert.equal(actingAgent({ ...principal('internal'), anyAgent: true }, 'anyone'), 'anyone');
    assert.equal(actingAgent(principal('internal'), undefined), 'key:k');
  });

  it('an unbound internal key acts only for the agents it lists, or any agent when created so', () => {
    const listing: Principal = { ...principal('internal'), agentIds: ['alice', 'bob'] };
    assert.equal(actingAgent(listing, 'alice'), 'alice');
    assert.equal(actingAgent(listing, 'bob', 'voter_agent_id'), 'bob');
    assert.equal(
      reason(() => actingAgent(listing, 'carol')),
      'AGENT_MISMATCH',
    );
    assert.equal(actingAgent(listing, undefined), 'key:k');
    // A key with neither (an unbound internal key from before the rule): no agent at all, only itself.
    assert.equal(
      reason(() => actingAgent(principal('internal'), 'alice')),
      'AGENT_MISMATCH',
    );
    assert.equal(actingAgent(principal('internal'), 'key:k'), 'key:k');
    assert.equal(
      reason(() => actingAgent(principal('untrusted'), 'alice')),
      'AGENT_MISMATCH',
    );
    // Privileged and system keys keep acting for any agent unless bound.
    assert.equal(actingAgent(principal('privileged'), 'carol'), 'carol');
    assert.equal(actingAgent(principal('system'), 'carol'), 'carol');
    assert.equal(
      reason(() => actingAgent(principal('system', 'alice'), 'carol')),
      'AGENT_MISMATCH',
    );
  });
});
