import assert from 'node:assert/strict';
import {
  compareSpecificity,
  decodeVariable,
  matchPathTemplate,
  parsePathTemplate,
  PathTemplateError,
  type PathTemplate,
} from '../src/path-template.ts';

/** Matches a request path and decodes the variables, as the route table does. */
function bind(t: PathTemplate, path: string): Record<string, string> | undefined {
  const raw = matchPathTemplate(t, path.slice(1).split('/'));
  if (raw === undefined) return undefined;
  return Object.fromEntries(raw.map((b) => [b.variable.fieldPath.join('.'), decodeVariable(b.raw)]));
}

describe('path-template', () => {
  describe('parse', () => {
    it('parses literals, variables, wildcards and a verb', () => {
      const t = parsePathTemplate('/v1/{name=projects/*/docs/**}:publish');
      assert.deepEqual(
        t.segments.map((s) => s.kind),
        ['literal', 'literal', 'wildcard', 'literal', 'deep'],
      );
      assert.deepEqual(t.variables, [{ fieldPath: ['name'], start: 1, end: 5 }]);
      assert.equal(t.verb, 'publish');
    });

    it('reads {var} as {var=*} and dotted field paths', () => {
      const t = parsePathTemplate('/memories/{item.id}/deprecate');
      assert.deepEqual(t.variables, [{ fieldPath: ['item', 'id'], start: 1, end: 2 }]);
      assert.deepEqual(t.segments[1], { kind: 'wildcard' });
    });

    for (const bad of [
      'memories',
      '/a/{id',
      '/a/{id}}',
      '/a/{1x}',
      '/a/**/b',
      '/a/{x}/{x}',
      '/a/{x={y}}',
      '/a//b',
      '/a/b c',
    ]) {
      it(`rejects ${JSON.stringify(bad)}`, () => {
        assert.throws(() => parsePathTemplate(bad), PathTemplateError);
      });
    }
  });

  describe('match', () => {
    it('binds simple variables and requires every literal', () => {
      const t = parsePathTemplate('/memories/{id}/deprecate');
      assert.deepEqual(bind(t, '/memories/m1/deprecate'), { id: 'm1' });
      assert.equal(bind(t, '/memories/m1'), undefined);
      assert.equal(bind(t, '/memories/m1/deprecate/x'), undefined);
      assert.equal(bind(t, '/memories//deprecate'), undefined, 'a variable never binds an empty segment');
    });

    it('binds a variable over several segments with a literal prefix', () => {
      const t = parsePathTemplate('/v1/{name=projects/*}/docs');
      assert.deepEqual(bind(t, '/v1/projects/p1/docs'), { name: 'projects/p1' });
      assert.equal(bind(t, '/v1/folders/p1/docs'), undefined);
    });

    it('lets ** take the rest of the path, zero or more segments', () => {
      const t = parsePathTemplate('/files/{path=**}');
      assert.deepEqual(bind(t, '/files/a/b/c.txt'), { path: 'a/b/c.txt' });
      assert.deepEqual(bind(t, '/files'), { path: '' });
    });

    it('percent-decodes a single-segment variable completely, %2F included', () => {
      const t = parsePathTemplate('/memories/{id}');
      assert.deepEqual(bind(t, '/memories/a%2Fb%20c%C3%A9'), { id: 'a/b cé' });
    });

    it('keeps %2F encoded in a multi-segment variable', () => {
      const t = parsePathTemplate('/files/{path=**}');
      assert.deepEqual(bind(t, '/files/a%2Fb/c%20d'), { path: 'a%2Fb/c d' });
    });

    it('throws URIError on malformed percent-encoding', () => {
      const t = parsePathTemplate('/memories/{id}');
      const raw = matchPathTemplate(t, ['memories', '%zz']);
      assert.ok(raw);
      assert.throws(() => decodeVariable(raw[0]!.raw), URIError);
    });

    it('compares literals after decoding', () => {
      const t = parsePathTemplate('/memories/add_batch');
      assert.ok(bind(t, '/memories/add%5Fbatch'));
    });

    it('matches a verb only as the suffix of the last segment', () => {
      const t = parsePathTemplate('/things/{id}:archive');
      assert.deepEqual(bind(t, '/things/t1:archive'), { id: 't1' });
      assert.equal(bind(t, '/things/t1'), undefined);
      assert.equal(bind(parsePathTemplate('/things/{id}'), '/things/a:b')?.id, 'a:b');
    });
  });

  describe('specificity', () => {
    const most = (...sources: string[]) => sources.map(parsePathTemplate).sort(compareSpecificity)[0]!.source;

    it('prefers literal segments over variables, from the left', () => {
      assert.equal(most('/memories/{id}', '/memories/export'), '/memories/export');
      assert.equal(
        most('/memories/{id}/{x}/{y}/{z}', '/memories/typed/episodic/session/{session_id}'),
        '/memories/typed/episodic/session/{session_id}',
      );
    });

    it('prefers a variable over ** and an exact end over an empty **', () => {
      assert.equal(most('/files/**', '/files/{name}'), '/files/{name}');
      assert.equal(most('/files/**', '/files'), '/files');
    });

    it('prefers a template with a verb', () => {
      assert.equal(most('/things/{id}', '/things/{id}:archive'), '/things/{id}:archive');
    });
  });
});
