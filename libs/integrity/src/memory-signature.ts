import { createHmac, timingSafeEqual } from 'node:crypto';

const US = '\x1f';
const V2_DOMAIN = 'service-mem-v2';
const PROVENANCE_DOMAIN = 'service-prov-v1';

/** The fields a memory signature covers: a direct edit of any of them breaks it. */
export interface SignedFields {
  readonly project_id: string;
  readonly agent_id: string;
  readonly scope: string;
  readonly trust_level: string;
  readonly content: string;
}

export type IntegrityFormat = 'v1' | 'v2' | 'none';
export type IntegrityStatus = 'valid' | 'invalid' | 'unsigned';

/** The exact v2 message of docs/architecture.md (The write path), fields joined by the unit separator 0x1F. */
export function v2Message(f: SignedFields): string {
  return [V2_DOMAIN, f.project_id, f.agent_id, f.scope, f.trust_level, f.content].join(US);
}

/** "v2:" + hex HMAC-SHA256 over the v2 message. */
export function signV2(key: string, f: SignedFields): string {
  return 'v2:' + createHmac('sha256', key).update(v2Message(f), 'utf8').digest('hex');
}

/** Legacy v1: bare hex HMAC-SHA256 over `{project_id}:{agent_id}:{content}`. */
export function signV1(key: string, f: Pick<SignedFields, 'project_id' | 'agent_id' | 'content'>): string {
  return createHmac('sha256', key).update(`${f.project_id}:${f.agent_id}:${f.content}`, 'utf8').digest('hex');
}

export function formatOf(hash: string | null | undefined): IntegrityFormat {
  if (!hash) return 'none';
  return hash.startsWith('v2:') ? 'v2' : 'v1';
}

function equalHex(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Recomputes and compares in constant time; both formats are recognised. */
export function verifyMemory(key: string, hash: string | null | undefined, f: SignedFields): IntegrityStatus {
  const format = formatOf(hash);
  if (format === 'none' || !hash) return 'unsigned';
  const expected = format === 'v2' ? signV2(key, f) : signV1(key, f);
  return equalHex(hash, expected) ? 'valid' : 'invalid';
}

/** The provenance record's own, domain-separated signature over its canonical JSON. */
export function signProvenance(key: string, canonical: string): string {
  return (
    'p1:' +
    createHmac('sha256', key)
      .update(PROVENANCE_DOMAIN + US + canonical, 'utf8')
      .digest('hex')
  );
}

export function verifyProvenance(key: string, signature: string, canonical: string): boolean {
  return equalHex(signature, signProvenance(key, canonical));
}
