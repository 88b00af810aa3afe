import assert from 'node:assert/strict';
import {
  CARD,
  eventsOf,
  GITHUB_TOKEN,
  INJECTION,
  memoriesOf,
  type MemoryBody,
  type WriteBody,
} from './helpers.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/**
 * Each action (reject, redact, flag, allow) for each category (pii, secrets, injection), set
 * through the CONTENT_POLICY_* settings, observed over REST as a user sees it.
 */
const SAMPLES = {
  pii: {
    content: 'Call-back address: jo.lee@corp.example for the audit.',
    type: 'email',
    secret: 'jo.lee@corp.example',
  },
  secrets: { content: `Corporate card ${CARD} for travel.`, type: 'payment_card', secret: CARD },
  injection: { content: INJECTION, type: 'system_override', secret: 'Ignore all previous instructions' },
} as const;

const CONFIGS: { name: string; env: Record<string, string>; expect: Record<keyof typeof SAMPLES, string> }[] =
  [
    {
      name: 'pii=redact secrets=flag injection=reject',
      env: {
        CONTENT_POLICY_PII: 'redact',
        CONTENT_POLICY_SECRETS: 'flag',
        CONTENT_POLICY_INJECTION: 'reject',
      },
      expect: { pii: 'redact', secrets: 'flag', injection: 'reject' },
    },
    {
      name: 'pii=reject secrets=redact injection=allow (global inherit)',
      env: {
        CONTENT_POLICY_PII: 'reject',
        CONTENT_POLICY_SECRETS: 'redact',
        CONTENT_POLICY_INJECTION: 'allow',
        CONTENT_POLICY_INJECTION_GLOBAL_SCOPE: 'inherit',
      },
      expect: { pii: 'reject', secrets: 'redact', injection: 'allow' },
    },
    {
      name: 'pii=allow secrets=allow injection=redact',
      env: {
        CONTENT_POLICY_PII: 'allow',
        CONTENT_POLICY_SECRETS: 'allow',
        CONTENT_POLICY_INJECTION: 'redact',
      },
      expect: { pii: 'allow', secrets: 'allow', injection: 'redact' },
    },
  ];

for (const config of CONFIGS) {
  describe(`content policy actions over REST: ${config.name}`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram('pglite', config.env);
    });
    after(() => t?.stop());

    for (const [category, sample] of Object.entries(SAMPLES) as [
      keyof typeof SAMPLES,
      (typeof SAMPLES)[keyof typeof SAMPLES],
    ][]) {
      const action = config.expect[category];
      it(`${category} -> ${action}`, async () => {
        const agent = `agent-${category}`;
        const res = await t.admin.post<WriteBody>('/memories/add', {
          content: sample.content,
          agent_id: agent,
        });
        const flag = `${category}:${sample.type}`;
        if (action === 'reject') {
          assert.equal(res.status, 422, res.text);
          assert.equal((await memoriesOf(t, agent)).length, 0);
          assert.equal((await eventsOf(t, 'SECURITY_REJECTED', agent)).length, 1);
          return;
        }
        assert.equal(res.status, 200, res.text);
        const got = await t.admin.get<MemoryBody>(`/memories/${res.body.id}?agent_id=${agent}`);
        if (action === 'redact') {
          assert.ok(!got.body.content.includes(sample.secret), got.body.content);
          assert.ok(got.body.content.includes(`[REDACTED:${sample.type}]`), got.body.content);
          assert.deepEqual(res.body.content_flags, [flag]);
        } else if (action === 'flag') {
          assert.equal(got.body.content, sample.content);
          assert.deepEqual(res.body.content_flags, [flag]);
        } else {
          assert.equal(got.body.content, sample.content);
          assert.deepEqual(res.body.content_flags, []);
        }
      });
    }
  });
}

describe('content policy: CONTENT_POLICY_INJECTION_GLOBAL_SCOPE', function () {
  this.timeout(60_000);
  it('inherit lets a flagged injection into global scope; the default rejects it', async () => {
    const inherit = await startTestEngram('pglite', { CONTENT_POLICY_INJECTION_GLOBAL_SCOPE: 'inherit' });
    try {
      const res = await inherit.admin.post<WriteBody>('/memories/add', {
        content: INJECTION,
        agent_id: 'g',
        scope: 'global',
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.content_flags, ['injection:system_override']);
    } finally {
      await inherit.stop();
    }
    const strict = await startTestEngram('pglite');
    try {
      const res = await strict.admin.post('/memories/add', {
        content: INJECTION,
        agent_id: 'g',
        scope: 'global',
      });
      assert.equal(res.status, 422, res.text);
      const token = await strict.admin.post('/memories/add', {
        content: `token ${GITHUB_TOKEN}`,
        agent_id: 'g',
      });
      assert.equal(token.status, 422);
    } finally {
      await strict.stop();
    }
  });
});
