import assert from 'node:assert/strict';
import type { Principal, PrincipalTrust } from '@engram/auth';
import { rateLimitSubject } from '../src/index.ts';

const principal = (trust: PrincipalTrust, boundAgentId?: string, projectId = 'p'): Principal => ({
  projectId,
  keyId: 'k1',
  trust,
  boundAgentId,
  instanceAdmin: false,
});

describe('rate-limit subject', () => {
  it('rate limits count the bound agent, else the named agent, else the key', () => {
    assert.deepEqual(rateLimitSubject(principal('internal', 'alice'), { agent_id: 'bob' }), {
      projectId: 'p',
      agent: 'alice',
    });
    const any = { ...principal('internal'), anyAgent: true };
    assert.deepEqual(rateLimitSubject(any, { agent_id: 'bob' }), {
      projectId: 'p',
      agent: 'bob',
    });
    // A key naming an agent it may not act for is refused later; it spends its own budget, not bob's.
    assert.deepEqual(
      rateLimitSubject({ ...principal('internal'), agentIds: ['alice'] }, { agent_id: 'bob' }),
      {
        projectId: 'p',
        agent: 'key:k1',
      },
    );
    assert.deepEqual(rateLimitSubject(any, { voter_agent_id: 'v' }), {
      projectId: 'p',
      agent: 'v',
    });
    assert.deepEqual(rateLimitSubject(principal('internal'), { agent_id: '' }), {
      projectId: 'p',
      agent: 'key:k1',
    });
    assert.deepEqual(rateLimitSubject(principal('internal'), undefined), { projectId: 'p', agent: 'key:k1' });
  });
});
