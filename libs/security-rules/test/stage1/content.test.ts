import assert from 'node:assert/strict';
import { validateWrite } from '../../src/index.ts';
import { codes, limits, violationsOf } from './helpers.ts';

describe('stage 1: content', () => {
  it('accepts ordinary text with newlines, tabs and carriage returns', () => {
    assert.deepEqual(violationsOf({ content: 'line one\r\n\tline two\nline three' }), []);
  });

  it('requires content', () => {
    assert.deepEqual(codes(violationsOf({ content: undefined })), ['content:REQUIRED']);
    assert.deepEqual(codes(violationsOf({ content: null })), ['content:REQUIRED']);
    assert.deepEqual(codes(violationsOf({ content: '' })), ['content:REQUIRED']);
  });

  it('refuses white-space-only content, including Unicode spaces', () => {
    assert.deepEqual(codes(violationsOf({ content: ' \n\t\r ' })), ['content:REQUIRED']);
    assert.deepEqual(codes(violationsOf({ content: '\u00a0\u2003\u3000\ufeff' })), ['content:REQUIRED']);
  });

  it('refuses a non-string content', () => {
    assert.deepEqual(codes(violationsOf({ content: 42 })), ['content:INVALID_VALUE']);
    assert.deepEqual(codes(violationsOf({ content: ['a'] })), ['content:INVALID_VALUE']);
  });

  it('accepts exactly 50,000 characters and refuses 50,001', () => {
    assert.deepEqual(violationsOf({ content: 'a'.repeat(50_000) }), []);
    const v = violationsOf({ content: 'a'.repeat(50_001) });
    assert.deepEqual(codes(v), ['content:TOO_LONG']);
    assert.match(v[0]!.description, /50000 characters \(counted in Unicode code points\)/);
  });

  it('counts code points, not UTF-16 units (an astral character counts once)', () => {
    const emoji = '\u{1F600}'; // two UTF-16 units
    assert.deepEqual(violationsOf({ content: emoji.repeat(50_000) }), []);
    assert.deepEqual(codes(violationsOf({ content: emoji.repeat(50_000) + 'a' })), ['content:TOO_LONG']);
  });

  it('honours a configured limit', () => {
    const tight = { ...limits, contentMaxLength: 10 };
    assert.deepEqual(validateWrite({ content: '0123456789', agent_id: 'a' }, tight), []);
    assert.deepEqual(codes(validateWrite({ content: '0123456789x', agent_id: 'a' }, tight)), [
      'content:TOO_LONG',
    ]);
  });

  it('refuses a far-too-long content without scanning it', () => {
    const v = violationsOf({ content: '\u0000'.repeat(200_000) });
    assert.deepEqual(codes(v), ['content:TOO_LONG']);
  });

  describe('control characters', () => {
    const allowed = [0x09, 0x0a, 0x0d];
    const refused: number[] = [];
    for (let cp = 0x00; cp <= 0x1f; cp++) if (!allowed.includes(cp)) refused.push(cp);
    refused.push(0x7f);
    for (let cp = 0x80; cp <= 0x9f; cp++) refused.push(cp);

    it('covers every C0, DEL and C1 control character except tab, newline and carriage return', () => {
      assert.equal(refused.length, 29 + 1 + 32);
    });

    for (const cp of refused) {
      const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
      it(`refuses ${hex} and reports its position`, () => {
        const v = violationsOf({ content: `ab\u{1F600}c${String.fromCodePoint(cp)}d` });
        assert.deepEqual(codes(v), ['content:CONTROL_CHARACTER']);
        assert.ok(v[0]!.description.includes(hex), v[0]!.description);
        assert.ok(v[0]!.description.includes('position 4'), v[0]!.description);
      });
    }

    for (const cp of allowed) {
      it(`accepts U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, () => {
        assert.deepEqual(violationsOf({ content: `a${String.fromCodePoint(cp)}b` }), []);
      });
    }

    it('accepts characters just outside the control ranges', () => {
      assert.deepEqual(violationsOf({ content: ' ~\u00a0\u00ff\u2028' }), []);
    });

    it('reports only the first control character', () => {
      const v = violationsOf({ content: 'x\u0001y\u0002' });
      assert.equal(v.length, 1);
      assert.match(v[0]!.description, /U\+0001 at position 1/);
    });

    it('never echoes the content in the description', () => {
      const secret = 'sk-very-secret-token';
      const v = violationsOf({ content: `${secret}\u0000` });
      assert.equal(v.length, 1);
      assert.ok(!v[0]!.description.includes(secret));
    });
  });

  describe('unpaired surrogates', () => {
    for (const [name, text, offset] of [
      ['a lone high surrogate', 'ab\ud800c', 2],
      ['a lone low surrogate', 'a\udc00', 1],
      ['a high surrogate at the end', 'abc\ud83d', 3],
      ['reversed pair', '\ude00\ud83d', 0],
    ] as const) {
      it(`refuses ${name}`, () => {
        const v = violationsOf({ content: text });
        assert.deepEqual(codes(v), ['content:INVALID_CHARACTERS']);
        assert.ok(v[0]!.description.includes(`position ${offset}`), v[0]!.description);
      });
    }

    it('accepts a proper pair', () => {
      assert.deepEqual(violationsOf({ content: 'ok \ud83d\ude00' }), []);
    });
  });

  it('reports length and control problems together', () => {
    const tight = { ...limits, contentMaxLength: 3 };
    assert.deepEqual(codes(validateWrite({ content: 'ab\u0000cd', agent_id: 'a' }, tight)), [
      'content:TOO_LONG',
      'content:CONTROL_CHARACTER',
    ]);
  });
});
