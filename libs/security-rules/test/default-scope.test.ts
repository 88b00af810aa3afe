import { MEMORY_TYPES, SCOPES } from '@engram/memory-model';
import assert from 'node:assert/strict';
import { DEFAULT_SCOPE_BY_TYPE } from '../src/index.ts';

describe('default scope by memory type', () => {
  it('has a default scope for every memory type, and never agent-shared', () => {
    assert.equal(MEMORY_TYPES.length, 9);
    for (const t of MEMORY_TYPES) {
      assert.ok(SCOPES.includes(DEFAULT_SCOPE_BY_TYPE[t]));
      assert.notEqual(DEFAULT_SCOPE_BY_TYPE[t], 'agent-shared');
    }
  });

  it('keeps the older private kinds private', () => {
    assert.deepEqual(
      MEMORY_TYPES.filter((t) => DEFAULT_SCOPE_BY_TYPE[t] === 'agent-private'),
      ['standard', 'progress', 'episodic'],
    );
  });
});
