import assert from 'node:assert/strict';
import {
  isLowTrust,
  isMemoryType,
  isScope,
  isTrustLevel,
  LOW_TRUST_LEVELS,
  MEMORY_TYPES,
  SCOPES,
  scopeWidth,
  TRUST_LEVELS,
} from '../src/index.ts';

describe('the memory vocabulary', () => {
  it('has the nine memory types of docs/architecture.md and recognises only those', () => {
    assert.deepEqual(
      [...MEMORY_TYPES],
      [
        'standard',
        'strategy',
        'reflection',
        'progress',
        'feature',
        'episodic',
        'semantic',
        'procedural',
        'control',
      ],
    );
    for (const t of MEMORY_TYPES) assert.ok(isMemoryType(t));
    for (const v of ['runbook', 'Standard', '', undefined, 3]) assert.equal(isMemoryType(v), false);
  });

  it('has three scopes and recognises only those', () => {
    assert.deepEqual([...SCOPES], ['agent-private', 'agent-shared', 'global']);
    for (const v of ['public', 'Global', null]) assert.equal(isScope(v), false);
    assert.deepEqual(['agent-private', 'agent-shared', 'global', 'public'].map(scopeWidth), [
      0,
      1,
      2,
      undefined,
    ]);
  });

  it('orders content trust labels lowest first; untrusted and unknown are the low ones', () => {
    assert.deepEqual([...TRUST_LEVELS], ['untrusted', 'unknown', 'internal', 'privileged', 'system']);
    assert.deepEqual([...LOW_TRUST_LEVELS], ['untrusted', 'unknown']);
    assert.deepEqual(
      TRUST_LEVELS.filter((t) => isLowTrust(t)),
      ['untrusted', 'unknown'],
    );
    assert.equal(isTrustLevel('root'), false);
    assert.equal(isLowTrust('root'), false);
  });
});
