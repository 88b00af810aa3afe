/** Latency of a function over a list of inputs: median and p99 in microseconds. */
export interface Latency {
  readonly medianUs: number;
  readonly p99Us: number;
  readonly maxUs: number;
  readonly n: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx] ?? NaN;
}

/**
 * Times fn once per input, `rounds` times over the list after a warm-up round, with
 * process.hrtime.bigint around each call (one item per sample, as "latency per item" means).
 */
export function measure<T>(inputs: readonly T[], fn: (input: T) => unknown, rounds = 5): Latency {
  for (const input of inputs) fn(input);
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const input of inputs) {
      const t0 = process.hrtime.bigint();
      fn(input);
      samples.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  samples.sort((a, b) => a - b);
  return {
    medianUs: percentile(samples, 0.5),
    p99Us: percentile(samples, 0.99),
    maxUs: samples[samples.length - 1] ?? NaN,
    n: samples.length,
  };
}

/** Inputs built to make a backtracking engine explode; RE2 stays linear on all of them. */
export function adversarialInputs(length = 50_000): { name: string; text: string }[] {
  const fill = (unit: string) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  return [
    { name: 'one letter repeated', text: fill('a') },
    { name: '"ignore " repeated', text: fill('ignore ') },
    { name: '"ignore all previous " without an object', text: fill('ignore all previous ') },
    { name: 'digits and spaces (card-like)', text: fill('4 ') },
    { name: 'digits and dashes (ssn-like)', text: fill('123-45-') },
    { name: '"password=" repeated', text: fill('password=') },
    { name: 'e-mail-like local parts without a domain end', text: fill('a.b@c') },
    {
      name: 'PEM header without an end',
      text: ('-----BEGIN PRIVATE KEY-----\n' + fill('QUJD')).slice(0, length),
    },
    { name: '"\\n" escapes repeated', text: fill('\\n ') },
    { name: 'line breaks only', text: fill('\n') },
    { name: 'your response ... repeated (gap rules)', text: fill('add it in your ') },
  ];
}

/**
 * measure() repeated `repeats` times; the repeat with the lowest median is kept. On a shared machine
 * other processes preempt this one at random; the least disturbed repeat is the closest to the cost
 * of the code itself. (The report says so.)
 */
export function measureBest<T>(
  inputs: readonly T[],
  fn: (input: T) => unknown,
  rounds = 5,
  repeats = 3,
): Latency {
  let best: Latency | undefined;
  for (let i = 0; i < repeats; i++) {
    const l = measure(inputs, fn, rounds);
    if (!best || l.medianUs < best.medianUs) best = l;
  }
  return best!;
}
