import assert from 'node:assert/strict';
import {
  planLegacyUpgrade,
  screenRows,
  signV1,
  signV2,
  verifyMemory,
  type SignedFields,
} from '../src/index.ts';

const key = 'k'.repeat(32);
const fields = (content: string): SignedFields => ({
  project_id: 'p',
  agent_id: 'a',
  scope: 'global',
  trust_level: 'internal',
  content,
});
const row = (id: string, content: string, hash: string | null) => ({
  id,
  ...fields(content),
  integrity_hash: hash,
});

describe('verify-on-read guard', () => {
  const good = row('good', 'fine', signV2(key, fields('fine')));
  const legacy = row('legacy', 'old', signV1(key, fields('old')));
  const edited = row('edited', 'edited!', signV2(key, fields('edited')));
  const bare = row('bare', 'nothing', null);
  const rows = [good, legacy, edited, bare];

  it('drop excludes failing rows and reports each failure', () => {
    const { kept, failed } = screenRows(rows, { key, mode: 'drop', requireSigned: false });
    assert.deepEqual(
      kept.map((r) => r.id),
      ['good', 'legacy', 'bare'],
    );
    assert.deepEqual(
      failed.map((f) => [f.row.id, f.status]),
      [['edited', 'invalid']],
    );
  });

  it('drop with requireSigned also excludes unsigned rows', () => {
    const { kept, failed } = screenRows(rows, { key, mode: 'drop', requireSigned: true });
    assert.deepEqual(
      kept.map((r) => r.id),
      ['good', 'legacy'],
    );
    assert.deepEqual(
      failed.map((f) => [f.row.id, f.status]),
      [
        ['edited', 'invalid'],
        ['bare', 'unsigned'],
      ],
    );
  });

  it('flag keeps every row and marks it; off checks nothing', () => {
    const flagged = screenRows(rows, { key, mode: 'flag', requireSigned: true });
    assert.deepEqual(
      flagged.kept.map((r) => [r.id, r.integrity_status]),
      [
        ['good', 'valid'],
        ['legacy', 'valid'],
        ['edited', 'invalid'],
        ['bare', 'invalid'],
      ],
    );
    const off = screenRows(rows, { key, mode: 'off', requireSigned: true });
    assert.equal(off.kept.length, 4);
    assert.equal(off.failed.length, 0);
  });

  it('a stored hash of the wrong length or shape is invalid, never an exception', () => {
    for (const hash of [
      'v2:',
      'v2:abc',
      'deadbeef',
      'v2:' + 'g'.repeat(64),
      signV2(key, fields('x')) + '00',
    ]) {
      assert.equal(verifyMemory(key, hash, fields('x')), 'invalid', hash);
    }
  });
});

describe('legacy upgrade plan (backfill)', () => {
  it('upgrades a verified v1 row and an unsigned row to the exact v2 signature, keeps v2, refuses tampered v1', () => {
    assert.deepEqual(planLegacyUpgrade(key, signV1(key, fields('a')), fields('a')), {
      action: 'upgrade',
      from: 'v1',
      hash: signV2(key, fields('a')),
    });
    assert.deepEqual(planLegacyUpgrade(key, null, fields('b')), {
      action: 'upgrade',
      from: 'none',
      hash: signV2(key, fields('b')),
    });
    assert.deepEqual(planLegacyUpgrade(key, signV2(key, fields('c')), fields('c')), { action: 'keep' });
    assert.deepEqual(planLegacyUpgrade(key, signV1(key, fields('d')), fields('d edited')), {
      action: 'tampered',
    });
    assert.deepEqual(planLegacyUpgrade('another key', signV1(key, fields('e')), fields('e')), {
      action: 'tampered',
    });
  });
});
