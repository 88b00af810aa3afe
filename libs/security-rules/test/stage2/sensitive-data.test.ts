import assert from 'node:assert/strict';
import { luhnValid, scanSensitive } from '../../src/index.ts';

/** The types found in a text, in order of appearance, and the matched substrings. */
function found(text: string) {
  return scanSensitive(text)
    .sort((a, b) => a.start - b.start)
    .map((f) => ({ type: f.type, category: f.category, match: text.slice(f.start, f.end) }));
}
const types = (text: string) => found(text).map((f) => f.type);

describe('stage 2: sensitive data', () => {
  describe('ssn (pii)', () => {
    it('finds ddd-dd-dddd', () => {
      assert.deepEqual(found('SSN on file: 123-45-6789.'), [
        { type: 'ssn', category: 'pii', match: '123-45-6789' },
      ]);
    });
    it('ignores invalid areas, parts of longer numbers and other shapes', () => {
      for (const text of [
        '000-12-3456',
        '666-12-3456',
        '900-12-3456',
        '123-00-4567',
        '1123-45-6789',
        '123-45-67890',
        '2024-11-21',
        '123 45 6789',
      ]) {
        assert.deepEqual(types(text), [], text);
      }
    });
  });

  describe('payment_card (secrets)', () => {
    it('checks Luhn', () => {
      assert.equal(luhnValid('4111111111111111'), true);
      assert.equal(luhnValid('4111111111111112'), false);
    });
    it('finds 13-19 digit Luhn-valid numbers, plain or grouped with spaces or dashes', () => {
      for (const card of [
        '4111111111111111',
        '4111 1111 1111 1111',
        '5500-0000-0000-0004',
        '378282246310005',
        '6011111111111117',
        '4222222222222',
      ]) {
        assert.deepEqual(
          found(`card ${card} on file`),
          [{ type: 'payment_card', category: 'secrets', match: card }],
          card,
        );
      }
    });
    it('ignores Luhn failures, ids outside issuer ranges, mixed separators and digits glued to words', () => {
      for (const text of [
        'card 4111 1111 1111 1112',
        'epoch 1700000000000 ms',
        'order 7845123456789 shipped',
        '4111 1111-1111 1111',
        'id A4111111111111111',
        'build 4111111111111111-rc1',
      ]) {
        assert.ok(!types(text).includes('payment_card'), text);
      }
    });
  });

  describe('api_key (secrets)', () => {
    const keys: Record<string, string> = {
      aws: 'AKIAIOSFODNN7EXAMPLE',
      openai: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      anthropic: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123',
      github_pat: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
      github_oauth: 'gho_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
      github_app: 'ghs_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
      github_fine: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp',
      gitlab: 'glpat-abcdefghij0123456789',
      google: 'AIza' + 'SyA1234567890abcdefghijklmnopqrstuv',
      stripe: 'sk_live_' + '51H8abcdefghijklmnop',
      stripe_restricted: 'rk_live_' + '51H8abcdefghijklmnop',
      jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    };
    for (const [name, key] of Object.entries(keys)) {
      it(`finds a ${name} token`, () => {
        assert.deepEqual(found(`use ${key} for the deploy`), [
          { type: 'api_key', category: 'secrets', match: key },
        ]);
      });
    }
    it('finds a PEM private key block whole', () => {
      const pem =
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----';
      assert.deepEqual(found(`key:\n${pem}\nthanks`), [{ type: 'api_key', category: 'secrets', match: pem }]);
    });
    it('ignores prefixes without a token body and public key blocks', () => {
      for (const text of [
        'the sk- prefix is OpenAI',
        'ghp_ tokens are personal',
        'AKIA means an access key id',
        '-----BEGIN PUBLIC KEY-----',
        'task-force meeting',
      ]) {
        assert.deepEqual(types(text), [], text);
      }
    });
  });

  describe('email (pii)', () => {
    it('finds addresses', () => {
      assert.deepEqual(found('write to alice.smith+ops@mail.example.co.uk today'), [
        { type: 'email', category: 'pii', match: 'alice.smith+ops@mail.example.co.uk' },
      ]);
    });
    it('ignores handles, decorators and versions', () => {
      for (const text of [
        'ping @alice on Slack',
        'use @Injectable() here',
        'pkg@1.2.3 is pinned',
        'user@localhost',
      ]) {
        assert.deepEqual(types(text), [], text);
      }
    });
  });

  describe('password assignments (secrets)', () => {
    const cases: [string, string][] = [
      ['password=hunter2', 'hunter2'],
      ['DB_PASSWORD=Tr0ub4dor&3', 'Tr0ub4dor&3'],
      ['secret: s3cr3t-value', 's3cr3t-value'],
      ['pwd: "correct horse"', 'correct horse'],
      ['passwd = letmein99', 'letmein99'],
      ['{"password": "p@ssw0rd!"}', 'p@ssw0rd!'],
      ["config = {'client_secret': 'abcDEF123456'}", 'abcDEF123456'],
      ['api_key=9f8e7d6c5b4a3f2e1d0c', '9f8e7d6c5b4a3f2e1d0c'],
      ['db:\n  password: Zx9!kLm2Qr', 'Zx9!kLm2Qr'],
      ['postgres://app:Sup3rS3cret@db.internal:5432/app', 'Sup3rS3cret'],
    ];
    for (const [text, secret] of cases) {
      it(`finds the value in ${JSON.stringify(text)}`, () => {
        const f = found(text).filter((x) => x.type === 'password' || x.type === 'api_key');
        assert.equal(f.length, 1, JSON.stringify(found(text)));
        assert.equal(f[0]!.match, secret);
      });
    }
    it('ignores prose, placeholders, references and already redacted values', () => {
      for (const text of [
        'Password: must be rotated every 90 days',
        'the secret: always pin the lockfile',
        'password=<your password>',
        'password: ${DB_PASSWORD}',
        'password: "{{ vault.db }}"',
        'password=****',
        'password=[REDACTED:password]',
        'The password field in the signup form must be masked',
        'password_min_length: 14',
        'postgres://user:password@localhost/db',
      ]) {
        assert.deepEqual(
          types(text).filter((t) => t === 'password' || t === 'api_key'),
          [],
          text,
        );
      }
    });
  });
});
