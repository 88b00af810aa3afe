import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'egk_';

/** A new raw key: 256 random bits, URL-safe. Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 of the raw key. A 256-bit random secret needs no slow hash: it cannot be guessed. */
export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** The first characters, to recognise a key in listings without revealing it. */
export function displayPrefix(raw: string): string {
  return raw.slice(0, KEY_PREFIX.length + 6);
}

/** Extracts the key from `authorization: Bearer <key>`; undefined when absent or malformed. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]{8,512})\s*$/i.exec(header);
  return m?.[1];
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
