import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type EngramConfig } from '@engram/config';

export interface Secrets {
  /** HMAC key of memory and provenance signatures. */
  readonly integrityKey: string;
  /** Shared secret of internal RPCs. */
  readonly internalToken: string;
}

interface StoredSecrets {
  integrity_key: string;
}

/**
 * Distributed mode: SERVICE_INTEGRITY_KEY (else SERVICE_API_KEY) and ENGRAM_INTERNAL_TOKEN are
 * required, or the process refuses to start. Embedded mode: an integrity key is generated on first
 * start and kept in <data dir>/secrets.json (mode 0600); the internal token never leaves the process.
 */
export function resolveSecrets(config: EngramConfig, embedded: boolean): Secrets {
  const configured = config.serviceIntegrityKey ?? config.serviceApiKey;
  if (!embedded) {
    if (!configured)
      throw new ConfigError(
        'SERVICE_INTEGRITY_KEY',
        'is required (or SERVICE_API_KEY) when DATABASE_URL is set',
      );
    if (!config.internalToken)
      throw new ConfigError('ENGRAM_INTERNAL_TOKEN', 'is required when DATABASE_URL is set');
    return { integrityKey: configured, internalToken: config.internalToken };
  }
  const internalToken = config.internalToken ?? randomBytes(32).toString('base64url');
  if (configured) return { integrityKey: configured, internalToken };
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'secrets.json');
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredSecrets>;
    if (typeof stored.integrity_key !== 'string' || stored.integrity_key.length < 32) {
      throw new ConfigError('ENGRAM_DATA_DIR', `${file} has no usable integrity_key`);
    }
    return { integrityKey: stored.integrity_key, internalToken };
  }
  const integrityKey = randomBytes(32).toString('base64url');
  writeFileSync(file, JSON.stringify({ integrity_key: integrityKey } satisfies StoredSecrets) + '\n', {
    mode: 0o600,
  });
  chmodSync(file, 0o600);
  return { integrityKey, internalToken };
}
