import assert from 'node:assert/strict';
import { NotFoundError, PermissionDeniedError } from '@engram/errors';
import {
  canAdmin,
  canRead,
  canRelabel,
  handoffAgents,
  mayAccessOwned,
  readerOf,
  requireAdmin,
  requireModify,
  type MemoryAccessFacts,
  type Principal,
  type PrincipalTrust,
} from '../src/index.ts';

const principal = (trust: PrincipalTrust, boundAgentId?: string, projectId = 'p'): Principal => ({
  projectId,
  keyId: 'k1',
  trust,
  boundAgentId,
  instanceAdmin: false,
});

const memory = (
  agentId: string,
  scope: string,
  sharedWith: string[] = [],
  projectId = 'p',
): MemoryAccessFacts => ({
  projectId,
  agentId,
  scope,
  sharedWith,
});

const outcome = (fn: () => void): string => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof PermissionDeniedError) return err.reason;
    if (err instanceof NotFoundError) return 'NOT_FOUND';
    throw err;
  }
};

describe('authorization rules (docs/architecture.md, Authorization)', () => {
  it('read: global, own and shared-with-me for untrusted/internal; the whole project for privileged/system', () => {
    const targets: [MemoryAccessFacts, boolean, boolean][] = [
      // memory, visible to internal "alice", visible to privileged
      [memory('alice', 'agent-private'), true, true],
      [memory('bob', 'agent-private'), false, true],
      [memory('bob', 'agent-shared', ['alice']), true, true],
      [memory('bob', 'agent-shared', ['carol']), false, true],
      [memory('bob', 'global'), true, true],
      [memory('alice', 'global', [], 'other'), false, false],
    ];
    for (const [m, low, high] of targets) {
      for (const t of ['untrusted', 'internal'] as const)
        assert.equal(canRead(readerOf(principal(t), 'alice'), m), low, `${t} ${JSON.stringify(m)}`);
      for (const t of ['privileged', 'system'] as const)
        assert.equal(canRead(readerOf(principal(t), 'alice'), m), high, `${t} ${JSON.stringify(m)}`);
    }
  });

  it('modify: invisible or other project -> 404; visible but not own -> 403; own or privileged -> allowed', () => {
    const internal = principal('internal');
    const reader = readerOf(internal, 'alice');
    assert.equal(
      outcome(() => requireModify(reader, internal, undefined)),
      'NOT_FOUND',
    );
    assert.equal(
      outcome(() => requireModify(reader, internal, memory('bob', 'agent-private'))),
      'NOT_FOUND',
    );
    assert.equal(
      outcome(() => requireModify(reader, internal, memory('bob', 'global'))),
      'SCOPE_FORBIDDEN',
    );
    assert.equal(
      outcome(() => requireModify(reader, internal, memory('alice', 'global'))),
      'ok',
    );
    assert.equal(
      outcome(() => requireModify(reader, internal, memory('alice', 'global', [], 'other'))),
      'NOT_FOUND',
    );
    const priv = principal('privileged');
    assert.equal(
      outcome(() => requireModify(readerOf(priv, 'x'), priv, memory('bob', 'agent-private'))),
      'ok',
    );
  });

  it('relabel: the author may only narrow and never touch trust; privileged relabels anything', () => {
    const m = memory('alice', 'agent-shared', ['bob', 'carol']);
    const internal = principal('internal');
    assert.equal(canRelabel(internal, 'alice', m, { scope: 'agent-private' }), true);
    assert.equal(canRelabel(internal, 'alice', m, { scope: 'global' }), false);
    assert.equal(canRelabel(internal, 'alice', m, { sharedWith: ['bob'] }), true);
    assert.equal(canRelabel(internal, 'alice', m, { sharedWith: ['bob', 'dave'] }), false);
    assert.equal(canRelabel(internal, 'alice', m, { trustLevel: 'untrusted' }), false);
    assert.equal(canRelabel(internal, 'bob', m, { scope: 'agent-private' }), false);
    assert.equal(
      canRelabel(principal('privileged'), 'x', m, { scope: 'global', trustLevel: 'system' }),
      true,
    );
    assert.equal(canRelabel(principal('system', undefined, 'q'), 'x', m, { scope: 'global' }), false);
  });

  it('/security/* needs privileged or system, /admin needs system (own project unless instance admin)', () => {
    const table: [PrincipalTrust, boolean, boolean][] = [
      ['untrusted', false, false],
      ['internal', false, false],
      ['privileged', true, false],
      ['system', true, true],
    ];
    for (const [t, security, admin] of table) {
      assert.equal(canAdmin(principal(t), 'security'), security, t);
      assert.equal(canAdmin(principal(t), 'admin'), admin, t);
    }
    assert.equal(
      outcome(() => requireAdmin(principal('internal'), 'security')),
      'ADMIN_REQUIRED',
    );
    assert.equal(
      outcome(() => requireAdmin(principal('system'), 'admin', 'other')),
      'ADMIN_REQUIRED',
    );
    assert.equal(
      outcome(() => requireAdmin({ ...principal('system'), instanceAdmin: true }, 'admin', 'other')),
      'ok',
    );
  });

  it('handoff: a bound key must be the source or the target', () => {
    const bound = principal('internal', 'alice');
    assert.deepEqual(handoffAgents(bound, 'alice', 'bob'), { source: 'alice', target: 'bob' });
    assert.deepEqual(handoffAgents(bound, 'bob', 'alice'), { source: 'bob', target: 'alice' });
    assert.equal(
      outcome(() => handoffAgents(bound, 'bob', 'carol')),
      'AGENT_MISMATCH',
    );
    assert.deepEqual(handoffAgents({ ...principal('internal'), anyAgent: true }, 'bob', 'carol'), {
      source: 'bob',
      target: 'carol',
    });
    const listing = { ...principal('internal'), agentIds: ['alice'] };
    assert.deepEqual(handoffAgents(listing, 'bob', 'alice'), { source: 'bob', target: 'alice' });
    assert.equal(
      outcome(() => handoffAgents(listing, 'bob', 'carol')),
      'AGENT_MISMATCH',
    );
    assert.equal(
      outcome(() => handoffAgents(principal('internal'), 'bob', 'carol')),
      'AGENT_MISMATCH',
    );
  });
});

describe('owned objects (runs, features, progress sessions)', () => {
  it('belong to their agent: a key that may act as it, or a privileged key, else nobody', () => {
    assert.equal(mayAccessOwned(principal('internal', 'alice'), 'alice'), true);
    assert.equal(mayAccessOwned(principal('internal', 'alice'), 'bob'), false);
    assert.equal(mayAccessOwned({ ...principal('internal'), agentIds: ['bob'] }, 'bob'), true);
    assert.equal(mayAccessOwned({ ...principal('internal'), agentIds: ['bob'] }, 'alice'), false);
    assert.equal(mayAccessOwned({ ...principal('internal'), anyAgent: true }, 'alice'), true);
    assert.equal(mayAccessOwned(principal('internal'), 'alice'), false);
    assert.equal(mayAccessOwned(principal('internal'), 'key:k1'), true);
    assert.equal(mayAccessOwned(principal('privileged', 'alice'), 'bob'), true);
    assert.equal(mayAccessOwned(principal('system'), 'bob'), true);
  });
});
