import assert from 'node:assert/strict';
import { ConfigError, loadEngramConfig } from '../src/index.ts';

describe('settings', () => {
  it('gives the documented defaults and a frozen object', () => {
    const c = loadEngramConfig({});
    assert.equal(c.httpPort, 8080);
    assert.equal(c.grpcPort, 50051);
    assert.equal(c.dataDir, './data');
    assert.equal(c.contentMaxLength, 50000);
    assert.equal(c.contentPolicySecrets, 'reject');
    assert.equal(c.contentPolicyInjectionGlobalScope, 'reject');
    assert.equal(c.integrityReadMode, 'drop');
    assert.equal(c.embeddingProvider, 'local');
    assert.ok(Object.isFrozen(c));
  });

  it('parses values and fails fast naming the variable', () => {
    assert.equal(
      loadEngramConfig({ ENGRAM_HTTP_PORT: '9090', INTEGRITY_REQUIRE_SIGNED: 'true' }).httpPort,
      9090,
    );
    const cases: [Record<string, string>, string][] = [
      [{ ENGRAM_HTTP_PORT: 'eighty' }, 'ENGRAM_HTTP_PORT'],
      [{ ENGRAM_HTTP_PORT: '70000' }, 'ENGRAM_HTTP_PORT'],
      [{ INTEGRITY_READ_MODE: 'maybe' }, 'INTEGRITY_READ_MODE'],
      [{ ENABLE_TRUST_LEVELS: 'sometimes' }, 'ENABLE_TRUST_LEVELS'],
      [{ CONTENT_POLICY_PII: 'shred' }, 'CONTENT_POLICY_PII'],
      [{ EMBEDDING_PROVIDER: 'magic' }, 'EMBEDDING_PROVIDER'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => loadEngramConfig(env),
        (err: unknown) =>
          err instanceof ConfigError && err.variable === variable && err.message.includes(variable),
      );
    }
  });

  it('refuses ranking weights that do not sum to 1.0', () => {
    assert.throws(() => loadEngramConfig({ RANKING_W_SIMILARITY: '0.9' }), /RANKING_W_\*.*sum to 1\.0/);
    const ok = loadEngramConfig({ RANKING_W_SIMILARITY: '0.5', RANKING_W_TRUST: '0.2' });
    assert.equal(ok.rankingWSimilarity, 0.5);
  });
});
