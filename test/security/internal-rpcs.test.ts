import assert from 'node:assert/strict';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { createClient, engramErrorOf, INTERNAL_TOKEN_HEADER, unary } from '@engram/grpc-kit';
import { SecurityRejectedError } from '@engram/errors';
import {
  IngestServiceClient,
  type IngestInternalRequest,
  type IngestInternalResponse,
  type ScanContentRequest,
  type ScanContentResponse,
} from '@engram/proto/engram/ingest/v1/ingest';
import { ENGINES } from '@engram/testing';
import {
  CARD,
  eventsOf,
  GITHUB_TOKEN,
  INJECTION,
  memoriesOf,
  provenanceOf,
  type WriteBody,
} from './helpers.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** IngestInternal (ace-feedback's and the importer's door into the pipeline) and ScanContent, over gRPC. */
for (const engine of ENGINES) {
  describe(`internal RPCs of ingest-security (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let client: IngestServiceClient;

    before(async () => {
      t = await startTestEngram(engine);
      client = createClient(IngestServiceClient, t.grpcAddress);
    });
    after(async () => {
      client?.close();
      await t?.stop();
    });

    const md = (opts: { key?: string; internal?: boolean } = {}) => {
      const m = new Metadata();
      m.set('authorization', `Bearer ${opts.key ?? t.adminKey}`);
      if (opts.internal !== false) m.set(INTERNAL_TOKEN_HEADER, t.engram.proc.secrets.internalToken);
      return m;
    };
    const ingest = (req: Partial<IngestInternalRequest>, m = md()) =>
      unary<IngestInternalRequest, IngestInternalResponse>(
        client.ingestInternal.bind(client),
        { items: [], kind: 'delta', depth: 0, atomic: true, deprecations: [], ...req },
        m,
      );
    const scan = (req: Partial<ScanContentRequest>, m = md()) =>
      unary<ScanContentRequest, ScanContentResponse>(
        client.scanContent.bind(client),
        { content: '', metadata: undefined, ...req },
        m,
      );
    const item = (content: string, agent_id: string, extra: Record<string, unknown> = {}) => ({
      content,
      agent_id,
      shared_with: [],
      steps: [],
      trigger_conditions: [],
      metadata: undefined,
      ...extra,
    });

    it('atomic: one rejected item rejects them all, stores nothing, applies no deprecation, and still audits', async () => {
      const old = await t.admin.post<WriteBody>('/memories/add', {
        content: 'Old delta entry to replace.',
        agent_id: 'ace',
      });
      const res = await ingest({
        kind: 'delta',
        atomic: true,
        items: [item('New delta entry: retries need jitter.', 'ace'), item(`leaked ${GITHUB_TOKEN}`, 'ace')],
        deprecations: [{ memory_id: old.body.id, reason: 'replaced' }],
      });
      assert.equal(res.applied, false);
      assert.deepEqual(res.deprecated_ids, []);
      assert.equal(res.results[0]?.id, undefined);
      assert.equal(res.results[0]?.error, undefined);
      const refused = engramErrorOf(res.results[1]!.error!);
      assert.equal(res.results[1]?.error?.code, status.FAILED_PRECONDITION);
      assert.ok(refused instanceof SecurityRejectedError, refused.message);
      assert.deepEqual(
        refused.detections.map((d) => d.type),
        ['api_key'],
      );
      const stored = await memoriesOf(t, 'ace');
      assert.deepEqual(
        stored.map((m) => m.content),
        ['Old delta entry to replace.'],
      );
      assert.equal(stored[0]!.is_deprecated, false);
      const events = await eventsOf(t, 'SECURITY_REJECTED', 'ace');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.details.channel, 'internal');
      assert.equal(events[0]!.details.kind, 'delta');
    });

    it('stores accepted items and applies deprecations in one call, with internal provenance', async () => {
      const old = await t.admin.post<WriteBody>('/memories/add', {
        content: 'Consolidation source A.',
        agent_id: 'curator',
      });
      const res = await ingest({
        kind: 'consolidation',
        atomic: true,
        depth: 2,
        source_run_id: 'run-77',
        items: [item('Merged: deploys need a healthy canary; contact ops@corp.example.', 'curator')],
        deprecations: [{ memory_id: old.body.id, reason: 'consolidated' }],
      });
      assert.equal(res.applied, true);
      assert.deepEqual(res.deprecated_ids, [old.body.id]);
      const id = res.results[0]?.id;
      assert.ok(id);
      assert.deepEqual(res.results[0]?.content_flags, ['pii:email']);
      const p = await provenanceOf(t, id);
      assert.equal(p.channel, 'internal');
      assert.equal(p.kind, 'consolidation');
      assert.equal(p.depth, 2);
      assert.equal(p.source_run_id, 'run-77');
    });

    it('lets each deprecation act as its own agent: deprecations alone, all in one call, bound keys held to theirs', async () => {
      const internal = await t.admin.createKey({
        trust_level: 'internal',
        name: 'unbound internal',
        any_agent: true,
      });
      const a = await internal.post<WriteBody>('/memories/add', {
        content: 'Old rule A.',
        agent_id: 'alice',
      });
      const b = await internal.post<WriteBody>('/memories/add', {
        content: 'Old rule B.',
        agent_id: 'alice',
      });
      const foreign = await internal.post<WriteBody>('/memories/add', {
        content: 'Bob rule.',
        agent_id: 'bob',
      });
      // An unbound key acting as alice (no item to borrow the agent from) deprecates both at once.
      const res = await ingest(
        {
          kind: 'delta',
          deprecations: [
            { memory_id: a.body.id, reason: 'replaced', agent_id: 'alice' },
            { memory_id: b.body.id, reason: 'replaced', agent_id: 'alice' },
          ],
        },
        md({ key: internal.key }),
      );
      assert.equal(res.applied, true);
      assert.deepEqual([...res.deprecated_ids].sort(), [a.body.id, b.body.id].sort());
      // Acting as alice does not reach bob's private memory (404, as if missing), and nothing changes.
      await assert.rejects(
        ingest(
          { kind: 'delta', deprecations: [{ memory_id: foreign.body.id, reason: 'x', agent_id: 'alice' }] },
          md({ key: internal.key }),
        ),
        (err: ServiceError) => {
          assert.equal(err.code, status.NOT_FOUND, err.message); // invisible to alice: as if missing
          return true;
        },
      );
      const row = await t.engram.db.knex('memories').where({ id: foreign.body.id }).first();
      assert.equal(row.is_deprecated, false);
      // A key bound to alice cannot name bob.
      const bound = await t.admin.createKey({
        trust_level: 'internal',
        bound_agent_id: 'alice',
        name: 'alice',
      });
      await assert.rejects(
        ingest(
          { kind: 'delta', deprecations: [{ memory_id: foreign.body.id, reason: 'x', agent_id: 'bob' }] },
          md({ key: bound.key }),
        ),
        (err: ServiceError) => err.code === status.PERMISSION_DENIED,
      );
    });

    it('non-atomic: failed items are reported in place and the others stored', async () => {
      const res = await ingest({
        kind: 'reflection',
        atomic: false,
        items: [
          item('Reflection: the agent skipped the dry run.', 'reflector', { memory_type: 'reflection' }),
          item(`card ${CARD}`, 'reflector'),
        ],
      });
      assert.equal(res.applied, true);
      assert.ok(res.results[0]?.id);
      assert.equal(res.results[1]?.error?.code, status.FAILED_PRECONDITION);
      assert.equal(engramErrorOf(res.results[1].error).reason, 'SECURITY_REJECTED');
      assert.equal((await memoriesOf(t, 'reflector')).length, 1);
    });

    it('refuses callers without the internal token, and bad kinds', async () => {
      await assert.rejects(
        ingest({ items: [item('x', 'a')] }, md({ internal: false })),
        (e: ServiceError) => e.code === status.PERMISSION_DENIED,
      );
      await assert.rejects(
        ingest({ kind: 'sideways', items: [item('x', 'a')] }),
        (e: ServiceError) => e.code === status.INVALID_ARGUMENT,
      );
    });

    it('ScanContent reports the worst-case (global) verdict with a redacted preview and stores nothing', async () => {
      const res = await scan({ content: `${INJECTION} Mail jo@corp.example.` });
      assert.equal(res.action, 'reject');
      assert.equal(res.allowed, false);
      assert.deepEqual(res.detections.map((d) => `${d.category}:${d.type}:${d.action}`).sort(), [
        'injection:system_override:reject',
        'pii:email:flag',
      ]);
      assert.ok(!res.redacted_content.includes('jo@corp.example'));
      assert.ok(res.redacted_content.includes('[REDACTED:email]'));
      assert.equal(res.policy_version, t.engram.policyVersion);
      const benign = await scan({ content: 'Deploys use blue-green.' }, md({ internal: false }));
      assert.equal(benign.action, 'allow');
      assert.equal(benign.allowed, true);
      const rows: { n: string }[] = await t.engram.db
        .knex('memories')
        .where({ content: 'Deploys use blue-green.' })
        .count('* as n');
      assert.equal(Number(rows[0]!.n), 0);
    });

    it('ScanContent without the internal token needs a privileged or system key', async () => {
      const internal = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'scanner' });
      await assert.rejects(
        scan({ content: 'hello' }, md({ key: internal.key, internal: false })),
        (e: ServiceError) => e.code === status.PERMISSION_DENIED,
      );
    });
  });
}
