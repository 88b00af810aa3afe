import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DEFAULT_CONTENT_POLICY,
  redact,
  screenContent,
  scanWrite,
  type ContentPolicy,
} from '../../src/index.ts';

const REDACT_ALL: ContentPolicy = {
  pii: 'redact',
  secrets: 'redact',
  injection: 'redact',
  injectionGlobalScope: 'inherit',
};
const LONGEST_TOKEN = '[REDACTED:indirect_instruction]'.length;

/** Secrets and personal data the detectors must catch, embedded in arbitrary text. */
const secret = fc.oneof(
  fc.constantFrom('4111 1111 1111 1111', '5500-0000-0000-0004', '123-45-6789', 'AKIAIOSFODNN7EXAMPLE'),
  fc.stringMatching(/^[A-Za-z0-9]{36}$/).map((s) => 'ghp_' + s),
  fc.stringMatching(/^[A-Za-z0-9]{24}$/).map((s) => 'sk-' + s),
  fc
    .tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z]{2,10}$/))
    .map(([u, d]) => `${u}@${d}.example.com`),
  fc.stringMatching(/^[A-Za-z0-9]{5,12}[0-9]$/).map((v) => `password=${v}`),
);
const filler = fc.stringMatching(/^[A-Za-z ,.\n]{0,40}$/);
const textWithSecrets = fc
  .tuple(filler, fc.array(fc.tuple(secret, filler), { minLength: 1, maxLength: 5 }))
  .map(([head, parts]) => ({
    text: head + parts.map(([s, f]) => ` ${s} ${f}`).join(''),
    secrets: parts.map(([s]) => s),
  }));

const screen = async (text: string, policy = REDACT_ALL) =>
  (await screenContent({ content: text }, { scope: 'agent-private', trustLevel: 'internal' }, { policy }))
    .write.content;

/** The part of a planted secret that must not survive (for an assignment: the value). */
const sensitivePart = (s: string) => (s.startsWith('password=') ? s.slice('password='.length) : s);

describe('redaction properties', () => {
  it('never leaves a matched secret in the stored text', async () => {
    await fc.assert(
      fc.asyncProperty(textWithSecrets, async ({ text, secrets }) => {
        const out = await screen(text);
        for (const s of secrets) assert.ok(!out.includes(sensitivePart(s)), `${s} survived in ${out}`);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent: redacting a redacted text changes nothing and finds nothing new', async () => {
    await fc.assert(
      fc.asyncProperty(textWithSecrets, async ({ text }) => {
        const once = await screen(text);
        assert.equal(await screen(once), once);
        assert.deepEqual(scanWrite({ content: once }, { stage2: true, stage3: false }), []);
      }),
      {
        numRuns: 300,
        // Found by this property: the learned signal read a secret's value as words and a redaction
        // token as visible text, so the redacted copy scored above the memory threshold and was
        // redacted whole on the second pass (scan-text.ts, withoutSensitive; features.ts, segmentsOf).
        examples: [
          [{ text: ' password=AAA0A0 \nai 123-45-6789 A\nA sk-aA0aA0AaAAa0a0aaAA0A0a0A A', secrets: [] }],
          [{ text: 'a\nAI sk-aaaA00a000a0aaAaaaAa0aaa a a. password=0AAAA0 ', secrets: [] }],
          [
            {
              text: ' AKIAIOSFODNN7EXAMPLE Ai\nA sk-AAaa0A0Aaaaa0AAaAA0Aa0AA A A 4111 1111 1111 1111 ',
              secrets: [],
            },
          ],
        ],
      },
    );
  });

  it('never grows the text by more than one token per detection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          textWithSecrets.map((t) => t.text),
          fc.string({ maxLength: 300 }),
        ),
        async (text) => {
          const detections = scanWrite({ content: text }).length;
          const out = await screen(text);
          assert.ok(
            out.length <= text.length + detections * LONGEST_TOKEN,
            `${text.length} -> ${out.length}`,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('merges overlapping spans into one token and keeps the text around them', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.array(fc.tuple(fc.nat(70), fc.nat(20)), { maxLength: 6 }),
        (text, raw) => {
          const spans = raw.map(([start, len]) => ({ start, end: start + len, type: 'x' }));
          const out = redact(text, spans);
          assert.ok(!out.includes('[REDACTED:x][REDACTED:x]') || spans.length > 1);
          const covered = new Set<number>();
          for (const s of spans) for (let i = s.start; i < Math.min(s.end, text.length); i++) covered.add(i);
          if (covered.size === 0) assert.equal(out, text);
          else assert.ok(out.includes('[REDACTED:x]'));
          assert.equal(redact(out, []), out);
        },
      ),
    );
  });

  it('with the default policy, secrets reject (nothing to redact) and pii is only flagged', async () => {
    const r = await screenContent(
      { content: 'mail bob@corp.example' },
      { scope: 'agent-private', trustLevel: 'internal' },
      { policy: DEFAULT_CONTENT_POLICY },
    );
    assert.equal(r.action, 'flag');
    assert.equal(r.write.content, 'mail bob@corp.example');
  });
});
