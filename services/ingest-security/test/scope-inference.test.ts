import assert from 'node:assert/strict';
import { inferScope } from '../src/domain/scope-inference.ts';

describe('scope inference', () => {
  it('uses the type default without a cue', () => {
    assert.deepEqual(inferScope('standard', 'The cache TTL is 5 minutes.', {}), {
      scope: 'agent-private',
      source: 'type_default',
    });
    assert.deepEqual(inferScope('procedural', 'Run make deploy.', undefined), {
      scope: 'global',
      source: 'type_default',
    });
  });

  it('reads metadata.scope_hint / visibility first, then tags, then content', () => {
    assert.deepEqual(
      inferScope('procedural', 'all agents should retry', { visibility: 'private', tags: ['global'] }),
      {
        scope: 'agent-private',
        source: 'metadata_scope_hint',
      },
    );
    assert.deepEqual(inferScope('standard', 'x', { tags: ['deploy', 'convention'] }), {
      scope: 'global',
      source: 'metadata_tags',
    });
    assert.deepEqual(inferScope('semantic', 'Note to self: buy milk', {}), {
      scope: 'agent-private',
      source: 'content_cue',
    });
    assert.deepEqual(inferScope('standard', 'Every agent must use UTC timestamps.', {}), {
      scope: 'global',
      source: 'content_cue',
    });
  });

  it('lets a private tag win over a global one, and never infers agent-shared', () => {
    assert.equal(inferScope('standard', 'x', { tags: ['public', 'confidential'] }).scope, 'agent-private');
    assert.equal(inferScope('standard', 'x', { scope_hint: 'agent-shared' }).scope, 'agent-private');
  });
});
