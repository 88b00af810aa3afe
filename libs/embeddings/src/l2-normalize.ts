/**
 * Scales `v` in place to unit length and returns it; undefined when it has no length (all zeros)
 * or holds a non-finite number.
 */
export function l2NormalizeInPlace<T extends { length: number; [i: number]: number }>(v: T): T | undefined {
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    sum += x * x;
  }
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return v;
}
