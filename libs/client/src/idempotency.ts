/**
 * A new Idempotency-Key: a random (version 4) UUID from the platform's Web Crypto, which Node 20,
 * browsers, Deno, Bun and edge runtimes all provide (getRandomValues also outside secure contexts).
 */
interface WebCrypto {
  readonly randomUUID?: () => string;
  readonly getRandomValues?: (array: Uint8Array) => Uint8Array;
}

export function newIdempotencyKey(): string {
  const webCrypto = (globalThis as { crypto?: WebCrypto }).crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  if (typeof webCrypto?.getRandomValues !== 'function') {
    throw new Error('@engram/client needs Web Crypto (globalThis.crypto) to create idempotency keys');
  }
  const bytes = webCrypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b: number) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
