import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildModel, MODEL_FILE } from '../../scripts/injection-model/build.ts';

describe('the shipped injection model', function () {
  this.timeout(120_000);

  it('is what a fresh training run on the dev corpora gives (make train-injection-model)', () => {
    const built = buildModel();
    assert.equal(readFileSync(MODEL_FILE, 'utf8'), built.source, 'run make train-injection-model');
  });
});
