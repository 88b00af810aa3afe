import { appendFileSync } from 'node:fs';

/**
 * Records what a fault test measured: printed always (one line), and appended as one JSON line to the
 * file named by ENGRAM_RELIABILITY_FIGURES, which `make reliability` turns into docs/reliability.md.
 */
export function recordFigures(test: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ test, ...figures });
  console.log(`      figures ${line}`);
  const file = process.env.ENGRAM_RELIABILITY_FIGURES;
  if (file) appendFileSync(file, line + '\n');
}
