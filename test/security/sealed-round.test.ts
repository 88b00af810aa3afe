import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUND_19_SEALED, sealedRound } from '../../scripts/bench/security/corpora.ts';
import { EVAL_DIR } from '../../scripts/injection-model/build.ts';

/**
 * The reader of round 15's sealed set, on a copy of the retired engram-r4-sealed files laid out as
 * round 5's set was, in a folder of another name (the real set is not in the repository while it is
 * being written, and no test makes or reads a folder of its name).
 */
const ROUND = { ...ROUND_19_SEALED, benignDir: 'sealed-copy', indirectDir: 'sealed-copy' };

describe('the sealed round reader (scripts/bench/security/corpora.ts)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-sealed-reader-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every file as missing when the folder is absent', () => {
    const r = sealedRound(dir, ROUND);
    assert.ok('missing' in r);
    assert.equal(r.missing.length, 4);
  });

  it('reads the four files: attacks, both hard-negative files (tagged by file), benign memories', () => {
    const from = join(EVAL_DIR, 'engram-r4-sealed');
    const to = join(dir, ROUND.indirectDir);
    mkdirSync(to);
    copyFileSync(
      join(from, 'indirect-injections.sealed.jsonl'),
      join(to, 'indirect-injections.sealed.jsonl'),
    );
    copyFileSync(join(from, 'benign-memories.sealed.jsonl'), join(to, 'benign-memories.sealed.jsonl'));
    const negatives = readFileSync(join(from, 'hard-negatives.sealed.jsonl'), 'utf8').trim().split('\n');
    // The first 48 rows of engram-r4-sealed are its minimal pairs (its data card).
    writeFileSync(join(to, 'hard-negatives.pairs.sealed.jsonl'), negatives.slice(0, 48).join('\n') + '\n');
    writeFileSync(join(to, 'hard-negatives.sealed.jsonl'), negatives.slice(48).join('\n') + '\n');
    const r = sealedRound(dir, ROUND);
    assert.ok('attacks' in r, 'missing' in r ? r.missing.join(',') : '');
    assert.equal(r.attacks.items.length, 280);
    assert.equal(r.negatives.items.length, 146);
    assert.equal(r.benign.items.length, 193);
    for (const c of [r.attacks, r.negatives, r.benign]) {
      assert.ok(c.items.every((i) => i.split === 'sealed' && i.writer === 'r19'));
    }
    assert.ok(r.attacks.items.every((i) => i.injection && i.tags?.harm && i.tags.addressing && i.tags.lang));
    assert.ok(r.negatives.items.every((i) => !i.injection && i.trustLevel === 'untrusted'));
    const byFile = (f: string) => r.negatives.items.filter((i) => i.tags?.file === f).length;
    assert.equal(byFile('hard-negatives.pairs'), 48);
    assert.equal(byFile('hard-negatives'), 98);
    assert.ok(r.benign.items.every((i) => i.tags?.memory_type === i.memoryType));
  });

  it('reads nothing while one file is missing', () => {
    rmSync(join(dir, ROUND.indirectDir, 'hard-negatives.pairs.sealed.jsonl'));
    const r = sealedRound(dir, ROUND);
    assert.ok('missing' in r);
    assert.deepEqual(r.missing, [join('sealed-copy', 'hard-negatives.pairs.sealed.jsonl')]);
  });
});
