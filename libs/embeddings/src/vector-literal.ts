/**
 * The pgvector text form of a vector: '[0.1,-0.25,1e-7]'. Each number is written with at most 9
 * significant digits (pgvector stores float4, which 9 digits represent exactly) in JavaScript's
 * shortest form, so the literal is compact and loses nothing the column keeps. Throws RangeError on
 * an empty vector or a non-finite number (pgvector refuses both).
 */
export function vectorLiteral(v: readonly number[]): string {
  if (v.length === 0) throw new RangeError('a vector needs at least one dimension');
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new RangeError(`vector component ${i} is not a finite number`);
    }
    // Number() drops the trailing zeros of toPrecision; `+ 0` turns -0 into 0.
    parts[i] = String(Number(x.toPrecision(9)) + 0);
  }
  return `[${parts.join(',')}]`;
}
