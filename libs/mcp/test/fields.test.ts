import assert from 'node:assert/strict';
import { assertValidWrite, DEFAULT_WRITE_LIMITS } from '@engram/security-rules';
import { memoryType, scope, trustLevel } from '../src/fields.ts';

describe('@engram/mcp tool fields', () => {
  it('offers exactly the memory types, scopes and trust levels the write path accepts', () => {
    for (const memory_type of memoryType.options)
      assert.doesNotThrow(() =>
        assertValidWrite({ agent_id: 'a', content: 'x', memory_type }, DEFAULT_WRITE_LIMITS),
      );
    for (const s of scope.options)
      assert.doesNotThrow(() =>
        assertValidWrite({ agent_id: 'a', content: 'x', scope: s }, DEFAULT_WRITE_LIMITS),
      );
    for (const trust_level of trustLevel.options)
      assert.doesNotThrow(() =>
        assertValidWrite({ agent_id: 'a', content: 'x', trust_level }, DEFAULT_WRITE_LIMITS),
      );
    assert.equal(memoryType.options.length, 9);
    assert.deepEqual(scope.options, ['agent-private', 'agent-shared', 'global']);
  });

  it('refuses a value the API would refuse before any request is made', () => {
    assert.equal(memoryType.safeParse('runbook').success, false);
    assert.equal(scope.safeParse('public').success, false);
    assert.equal(trustLevel.safeParse('root').success, false);
    assert.equal(memoryType.safeParse('procedural').success, true);
  });
});
