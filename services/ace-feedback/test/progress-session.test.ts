import assert from 'node:assert/strict';
import { applySessionChange, type ProgressSession } from '../src/domain/progress-session.ts';

const base: ProgressSession = {
  sessionId: 's',
  agentId: 'a',
  completed: ['one'],
  inProgress: 'two',
  next: ['two', 'three'],
  blocked: [{ item: 'three', reason: 'waiting' }],
  summary: 'start',
  updatedAt: new Date(0),
};
const now = new Date(1000);

describe('progress session update', () => {
  it('keeps fields that are not given and unions completed without duplicates', () => {
    const s = applySessionChange(base, { completed: ['one', 'zero'], next: [], blocked: [] }, now);
    assert.deepEqual(s.completed, ['one', 'zero']);
    assert.deepEqual(s.next, ['two', 'three']);
    assert.equal(s.inProgress, 'two');
    assert.equal(s.summary, 'start');
    assert.equal(s.updatedAt, now);
  });

  it('moves a completed item out of in_progress, next and blocked', () => {
    const s = applySessionChange(base, { completed: ['two', 'three'], next: [], blocked: [] }, now);
    assert.equal(s.inProgress, '');
    assert.deepEqual(s.next, []);
    assert.deepEqual(s.blocked, []);
  });

  it('replaces next and blocked when given, and in_progress and summary when given', () => {
    const s = applySessionChange(
      base,
      {
        completed: [],
        next: ['four', 'four'],
        blocked: [{ item: 'five', reason: 'r' }],
        inProgress: 'three',
        summary: '',
      },
      now,
    );
    assert.deepEqual(s.next, ['four']);
    assert.deepEqual(s.blocked, [{ item: 'five', reason: 'r' }]);
    assert.equal(s.inProgress, 'three');
    assert.equal(s.summary, '');
  });
});
