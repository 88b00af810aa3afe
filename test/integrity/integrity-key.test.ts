import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEngramConfig } from '@engram/config';
import { resolveSecrets } from '@engram/platform';

describe('the integrity key', () => {
  const distributed = { DATABASE_URL: 'postgres://x@127.0.0.1/db', ENGRAM_INTERNAL_TOKEN: 't'.repeat(32) };

  it('is SERVICE_INTEGRITY_KEY, else SERVICE_API_KEY; distributed mode refuses to start without either', () => {
    const both = loadEngramConfig({
      ...distributed,
      SERVICE_INTEGRITY_KEY: 'integrity',
      SERVICE_API_KEY: 'api',
    });
    assert.equal(resolveSecrets(both, false).integrityKey, 'integrity');
    const apiOnly = loadEngramConfig({ ...distributed, SERVICE_API_KEY: 'api' });
    assert.equal(resolveSecrets(apiOnly, false).integrityKey, 'api');
    assert.throws(() => resolveSecrets(loadEngramConfig(distributed), false), /SERVICE_INTEGRITY_KEY/);
  });

  it('is generated once and kept in the embedded data directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-key-'));
    try {
      const config = loadEngramConfig({ ENGRAM_DATA_DIR: dir });
      const first = resolveSecrets(config, true).integrityKey;
      assert.ok(first.length >= 32);
      assert.equal(resolveSecrets(config, true).integrityKey, first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
