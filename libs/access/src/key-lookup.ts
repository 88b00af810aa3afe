import type { KeyRecord } from './key-record.ts';

/**
 * The port through which KeyAuthenticator finds a presented key: by the SHA-256 of the raw key
 * (hashApiKey). Revoked and expired keys are returned as they are; the authenticator refuses them.
 * KnexKeyLookup reads api_keys; tests may pass an in-memory lookup.
 */
export interface KeyLookup {
  findByHash(hash: string): Promise<KeyRecord | undefined>;
}
