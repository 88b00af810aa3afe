import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  auditSubject,
  auditSubjectFilter,
  decodeSubjectToken,
  encodeSubjectToken,
  subjectMatches,
} from '../src/index.ts';

describe('subject tokens', () => {
  it('escape the subject separator and wildcards of project ids', () => {
    assert.equal(encodeSubjectToken('team.alpha'), 'team%2Ealpha');
    assert.equal(encodeSubjectToken('a*b>c d%e'), 'a%2Ab%3Ec%20d%25e');
    assert.equal(encodeSubjectToken('Proj_1:x@y-z'), 'Proj_1:x@y-z');
    assert.equal(auditSubject('team.alpha', 'KEY_CREATED'), 'engram.audit.team%2Ealpha.KEY_CREATED');
    assert.equal(auditSubjectFilter('team.alpha', 'x.y'), 'x.y.team%2Ealpha.>');
    assert.throws(() => encodeSubjectToken(''), RangeError);
  });

  it('are always one valid token and decode back to the original (so encoding is injective)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'binary' }), (s) => {
        const token = encodeSubjectToken(s);
        assert.match(token, /^[A-Za-z0-9_:@%-]+$/);
        assert.equal(decodeSubjectToken(token), s);
      }),
      { numRuns: 2000 },
    );
  });

  it('keep different projects on different subjects, and a project filter matches only its own', () => {
    const projectId = fc.stringMatching(/^[A-Za-z0-9._:@-]{1,20}$/);
    fc.assert(
      fc.property(projectId, projectId, (a, b) => {
        fc.pre(a !== b);
        const subjectA = auditSubject(a, 'MEMORY_CREATED');
        assert.equal(subjectA.split('.').length, 4);
        assert.ok(subjectMatches(auditSubjectFilter(a), subjectA));
        assert.ok(!subjectMatches(auditSubjectFilter(b), subjectA));
      }),
    );
  });
});

describe('subjectMatches', () => {
  const cases: [string, string, boolean][] = [
    ['engram.audit.>', 'engram.audit.p.T', true],
    ['engram.audit.>', 'engram.audit', false],
    ['engram.audit.*.T', 'engram.audit.p.T', true],
    ['engram.audit.*.T', 'engram.audit.p.U', false],
    ['engram.audit.*', 'engram.audit.p.T', false],
    ['engram.audit.p.T', 'engram.audit.p.T', true],
    ['engram.audit.p.T', 'engram.audit.p.T.x', false],
    ['*.audit.>', 'engram.audit.p.T', true],
    ['>', 'a', true],
  ];
  for (const [pattern, subject, expected] of cases) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${subject}`, () => {
      assert.equal(subjectMatches(pattern, subject), expected);
    });
  }
});
