import { scanInjection } from '@engram/security-rules';
import { bySplit, confusion, errors, fpr, recall } from './confusion.ts';
import type { Corpus } from './corpora.ts';

const detect = (text: string) => scanInjection(text).length > 0;

/** Development aid (`--errors`): the dev-split misses and false positives of stage 3. */
export function printErrors(corpora: readonly Corpus[], split: 'dev' | 'holdout'): void {
  for (const corpus of corpora) {
    const items = bySplit(corpus, split);
    const c = confusion(items, detect);
    console.log(`\n## ${corpus.name} [${split}] recall ${recall(c).toFixed(3)} fpr ${fpr(c).toFixed(3)}`, c);
    const { fn, fp } = errors(items, detect);
    for (const i of fp) console.log('  FP', JSON.stringify(i.text.slice(0, 200)));
    for (const i of fn) console.log('  FN', JSON.stringify(i.text.slice(0, 160)));
  }
}
