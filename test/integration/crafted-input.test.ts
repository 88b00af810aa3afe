import assert from 'node:assert/strict';
import { ENGINES, type ApiClient, type ApiResponse } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface ErrorBody {
  error: {
    code: string;
    status: number;
    reason: string;
    message: string;
    details?: { '@type': string; field_violations?: { field: string; reason: string }[] }[];
  };
}

interface KeyList {
  keys: { key_id: string; revoked_at?: string }[];
  next_cursor: string;
}

/** A 400 VALIDATION_FAILED whose BadRequest names `field`, with no database text in the body. */
function assertRefused(res: ApiResponse<ErrorBody>, field: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.reason, 'VALIDATION_FAILED', res.text);
  const fields = (res.body.error.details ?? []).flatMap((d) => d.field_violations ?? []).map((v) => v.field);
  assert.ok(fields.includes(field), `expected a violation of ${field}: ${res.text}`);
  assert.doesNotMatch(
    res.text,
    /invalid input syntax|out of range for type|date\/time field|byte sequence| {4}at /,
  );
}

/** An opaque cursor as the services build them: base64url of a JSON array. */
const jsonCursor = (parts: string[]) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

const DASHES = '-'.repeat(36);

/**
 * The crafted requests that used to reach PostgreSQL as cast errors and come back as 500 INTERNAL:
 * each is now a 400 naming the field, and leaves everything as it was.
 */
for (const engine of ENGINES) {
  describe(`crafted ids, dates and cursors are refused before SQL (${engine})`, function () {
    this.timeout(90_000);
    let t: TestEngram;
    let privileged: ApiClient;
    let keyId: string;

    before(async () => {
      t = await startTestEngram(engine);
      const created = await t.admin.post<{ key_id: string; api_key: string }>('/admin/keys', {
        name: 'bystander',
        trust_level: 'privileged',
      });
      assert.equal(created.status, 200, created.text);
      keyId = created.body.key_id;
      privileged = t.admin.withKey(created.body.api_key);
    });
    after(() => t?.stop());

    const listKeys = async () => {
      const res = await t.admin.get<KeyList>('/admin/keys');
      assert.equal(res.status, 200, res.text);
      return res.body.keys;
    };

    it('GET /security/audit?since=2024-02-30T00:00:00Z is 400 naming since (a day February does not have)', async () => {
      assertRefused(await privileged.get<ErrorBody>('/security/audit?since=2024-02-30T00:00:00Z'), 'since');
      assertRefused(await privileged.get<ErrorBody>('/security/audit?until=2023-02-29T00:00:00Z'), 'until');
      assertRefused(await privileged.get<ErrorBody>('/security/audit?since=0000-01-01T00:00:00Z'), 'since');
      const leapDay = await privileged.get('/security/audit?since=2024-02-29T00:00:00Z');
      assert.equal(leapDay.status, 200, leapDay.text);
    });

    it('an audit or flagged cursor with an impossible date or a 36-dash id is 400 naming cursor', async () => {
      for (const cursor of [
        jsonCursor(['2024-02-30T00:00:00.000000Z', '01890a5d-ac96-774b-bcce-b302099a8057']),
        jsonCursor(['2024-02-01T00:00:00.000000Z', DASHES]),
        jsonCursor(['1', '01890a5d-ac96-774b-bcce-b302099a8057']),
      ]) {
        assertRefused(await privileged.get<ErrorBody>(`/security/audit?cursor=${cursor}`), 'cursor');
        assertRefused(await privileged.get<ErrorBody>(`/security/flagged?cursor=${cursor}`), 'cursor');
      }
    });

    it('GET /admin/keys?cursor=not-a-uuid is 400 naming cursor; the keys are listed as before', async () => {
      const before = await listKeys();
      assertRefused(await t.admin.get<ErrorBody>('/admin/keys?cursor=not-a-uuid'), 'cursor');
      const dashes = Buffer.from(DASHES, 'utf8').toString('base64url');
      assertRefused(await t.admin.get<ErrorBody>(`/admin/keys?cursor=${dashes}`), 'cursor');
      assertRefused(await t.admin.get<ErrorBody>('/admin/keys?project_id=%00'), 'project_id');
      assert.deepEqual(await listKeys(), before);
    });

    it('DELETE /admin/keys/ followed by 36 dashes is 400 naming key_id; no key is revoked', async () => {
      assertRefused(await t.admin.request<ErrorBody>('DELETE', `/admin/keys/${DASHES}`), 'key_id');
      assertRefused(await t.admin.request<ErrorBody>('DELETE', '/admin/keys/not-a-key'), 'key_id');
      const keys = await listKeys();
      assert.ok(
        keys.every((k) => k.revoked_at === undefined),
        JSON.stringify(keys),
      );
      assert.ok(keys.some((k) => k.key_id === keyId));
      assert.equal((await privileged.get('/security/config')).status, 200, 'the key still works');
    });

    it('a NUL in a hybrid query, a key name or a project name is 400 naming the field (text cannot hold it)', async () => {
      assertRefused(
        await privileged.post<ErrorBody>('/memories/hybrid_query', { query: 'a\u0000b' }),
        'query',
      );
      const before = await listKeys();
      assertRefused(
        await t.admin.post<ErrorBody>('/admin/keys', {
          name: 'nul\u0000',
          trust_level: 'internal',
          any_agent: true,
        }),
        'name',
      );
      assert.equal((await listKeys()).length, before.length);
      assertRefused(
        await t.admin.post<ErrorBody>('/admin/projects', { project_id: 'nul-name', name: 'a\u0000b' }),
        'name',
      );
      const retry = await t.admin.post('/admin/projects', { project_id: 'nul-name', name: 'fine' });
      assert.equal(retry.status, 200, `the refused project was not created: ${retry.text}`);
    });

    it('POST /admin/keys with expires_at 2099-02-30 is 400 naming expires_at; no key is created', async () => {
      const before = await listKeys();
      const res = await t.admin.post<ErrorBody>('/admin/keys', {
        name: 'rolled-over',
        trust_level: 'internal',
        expires_at: '2099-02-30T00:00:00Z',
      });
      assertRefused(res, 'expires_at');
      assert.equal((await listKeys()).length, before.length);
    });
  });
}
