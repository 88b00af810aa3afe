import assert from 'node:assert/strict';
import { HashEmbedder, vectorLiteral } from '../src/index.ts';

describe('vectorLiteral', () => {
  it('writes the compact pgvector text form', () => {
    assert.equal(vectorLiteral([0.1, -0.25, 1, 0]), '[0.1,-0.25,1,0]');
    assert.equal(vectorLiteral([-0]), '[0]');
    assert.equal(vectorLiteral([1e-7, 123456789012]), '[1e-7,123456789000]');
  });

  it('keeps float4 precision (9 significant digits) and round-trips through float4', () => {
    const v = new HashEmbedder({ dimensions: 64 }).embedText('payments deploy failed with E1234');
    const parsed = vectorLiteral(v).slice(1, -1).split(',').map(Number);
    assert.equal(parsed.length, 64);
    parsed.forEach((x, i) => assert.equal(Math.fround(x), Math.fround(v[i]!)));
    assert.ok(vectorLiteral(v).length < JSON.stringify(v).length, 'more compact than full doubles');
  });

  it('refuses what pgvector refuses', () => {
    assert.throws(() => vectorLiteral([]), RangeError);
    assert.throws(() => vectorLiteral([1, NaN]), RangeError);
    assert.throws(() => vectorLiteral([Infinity]), RangeError);
  });
});
