import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { signV1, signV2, verifyMemory, type SignedFields } from '../src/index.ts';

const key = 'test-key';
const base: SignedFields = {
  project_id: 'p1',
  agent_id: 'a1',
  scope: 'global',
  trust_level: 'internal',
  content: 'hello',
};

describe('memory signatures', () => {
  it('v2 is the HMAC of the domain-separated message of docs/architecture.md, The write path', () => {
    const msg = 'service-mem-v2\x1fp1\x1fa1\x1fglobal\x1finternal\x1fhello';
    assert.equal(signV2(key, base), 'v2:' + createHmac('sha256', key).update(msg).digest('hex'));
  });

  it('a direct edit of any signed field breaks the signature', () => {
    const hash = signV2(key, base);
    assert.equal(verifyMemory(key, hash, base), 'valid');
    for (const field of ['project_id', 'agent_id', 'scope', 'trust_level', 'content'] as const) {
      assert.equal(verifyMemory(key, hash, { ...base, [field]: base[field] + 'x' }), 'invalid', field);
    }
    assert.equal(verifyMemory('other-key', hash, base), 'invalid');
  });

  it('legacy v1 hashes verify; rows without a hash are unsigned', () => {
    assert.equal(verifyMemory(key, signV1(key, base), base), 'valid');
    assert.equal(verifyMemory(key, signV1(key, base), { ...base, content: 'changed' }), 'invalid');
    assert.equal(verifyMemory(key, null, base), 'unsigned');
  });

  it('field boundaries cannot be shifted: moving text between fields changes the message', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        const one = signV2(key, { ...base, agent_id: a + b, content: c });
        const two = signV2(key, { ...base, agent_id: a, content: b + c });
        return b === '' || a.includes('\x1f') || b.includes('\x1f') || one !== two;
      }),
    );
  });
});
