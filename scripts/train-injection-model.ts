/**
 * `make train-injection-model`: trains the learned injection signal on the dev parts of the Engram
 * corpora, chooses its thresholds on their validation parts and writes
 * libs/security-rules/src/model/injection-model.data.ts (deterministic: the same file on every run).
 * `--check` fails when the shipped file differs from a fresh run instead of writing it.
 * `--cross-writer` prints writer-held-out validation (scripts/injection-model/cross-writer.ts) and
 * writes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { buildModel, MODEL_FILE } from './injection-model/build.ts';
import { crossWriterReport } from './injection-model/cross-writer.ts';

if (process.argv.includes('--cross-writer')) {
  for (const line of crossWriterReport()) console.log(line);
  process.exit(0);
}

const built = buildModel();
for (const line of built.summary) console.log(line);
if (process.argv.includes('--check')) {
  if (readFileSync(MODEL_FILE, 'utf8') !== built.source) {
    console.error(`${MODEL_FILE} differs from a fresh training run: run make train-injection-model`);
    process.exit(1);
  }
  console.log('the shipped model is what a fresh run gives');
} else {
  writeFileSync(MODEL_FILE, built.source);
  console.log(`written to ${MODEL_FILE}`);
}
