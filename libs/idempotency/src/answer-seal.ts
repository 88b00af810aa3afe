import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'engram-idempotency-answer-v1';

/**
 * Encrypts the answers idempotency records keep (AES-256-GCM, a fresh nonce per answer). The key is
 * derived (HKDF-SHA256) from the integrity key, which every process of a deployment shares and the
 * embedded process keeps in its data directory, so any replica can open what another one sealed. The
 * additional data binds a sealed answer to its record (project, API key, Idempotency-Key, RPC): a
 * sealed answer copied into another record does not open. What this protects: a database dump or a
 * read replica alone reveals neither the raw API key CreateKey answered nor the memory content a
 * PATCH answered.
 */
export class AnswerSeal {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length === 0) throw new Error('AnswerSeal needs a non-empty secret');
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32));
  }

  /** version (1 byte) | nonce (12) | ciphertext | tag (16). */
  seal(plain: Buffer, context: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]);
  }

  /** The plain answer, or undefined when it was sealed under another key or for another record. */
  open(sealed: Buffer, context: string): Buffer | undefined {
    if (sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== VERSION) return undefined;
    const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    const body = sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      return undefined;
    }
  }
}

/** The additional data of a record's sealed answer: its identity, unambiguously joined. */
export function sealContext(parts: {
  projectId: string;
  keyId: string;
  key: string;
  method: string;
}): string {
  return JSON.stringify([parts.projectId, parts.keyId, parts.key, parts.method]);
}
