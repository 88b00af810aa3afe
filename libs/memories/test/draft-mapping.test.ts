import assert from 'node:assert/strict';
import type { Deprecation, MemoryDraft, WriteResult } from '@engram/memory-model';
import {
  Deprecation as DeprecationMessage,
  WriteResult as WriteResultMessage,
} from '@engram/proto/engram/memory/v1/memory';
import { MemoryDraft as MemoryDraftMessage, Provenance } from '@engram/proto/engram/memory/v1/memory_store';
import {
  deprecationFromProto,
  deprecationToProto,
  draftFromProto,
  draftToProto,
  writeResultFromProto,
  writeResultToProto,
} from '../src/index.ts';

/** Every field set, each to a value no other field has, so a swapped or dropped field shows. */
const fullDraft: MemoryDraft = {
  namespace: 'ns-1',
  agent_id: 'agent-1',
  content: 'The cache TTL is 5 minutes.',
  memory_type: 'episodic',
  scope: 'agent-shared',
  trust_level: 'internal',
  metadata: { tags: ['cache'], nested: { depth: 2 } },
  content_flags: ['pii:email'],
  shared_with: ['agent-2'],
  session_id: 'session-1',
  sequence_number: 7,
  entity_id: 'entity-1',
  error_pattern: 'timeout after *',
  source_trajectory_id: 'trajectory-1',
  provenance: {
    channel: 'mcp',
    kind: 'reflection',
    agent_id: 'agent-3',
    api_key_id: 'key-1',
    source_run_id: 'run-1',
    interaction_id: 'request-1',
    depth: 3,
    verdict: { action: 'flag', detections: 1 },
    taint: ['internal', 'pii'],
    policy_version: 'policy-1',
  },
};

const sortedKeys = (o: object) => Object.keys(o).sort();

/** Through the wire too: what memory-store decodes is what the domain drafted. */
const overTheWire = <T>(fns: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T }, m: T) =>
  fns.decode(fns.encode(m).finish());

describe('memory-store write mapping (domain <-> protobuf)', () => {
  it('a full draft comes back unchanged from protobuf and from the wire', () => {
    assert.deepEqual(draftFromProto(draftToProto(fullDraft)), fullDraft);
    assert.deepEqual(draftFromProto(overTheWire(MemoryDraftMessage, draftToProto(fullDraft))), fullDraft);
  });

  it('maps every field of the MemoryDraft and Provenance messages, and no other', () => {
    const message = draftToProto(fullDraft);
    // A field added to the proto and forgotten here (or a domain field the proto lacks) fails this.
    assert.deepEqual(sortedKeys(message), sortedKeys(MemoryDraftMessage.fromPartial({})));
    assert.deepEqual(sortedKeys(fullDraft), sortedKeys(MemoryDraftMessage.fromPartial({})));
    assert.ok(message.provenance);
    assert.deepEqual(sortedKeys(message.provenance), sortedKeys(Provenance.fromPartial({})));
    assert.deepEqual(sortedKeys(fullDraft.provenance), sortedKeys(Provenance.fromPartial({})));
  });

  it('an absent optional field is null in the domain and absent on the wire', () => {
    const sparse: MemoryDraft = {
      ...fullDraft,
      session_id: null,
      sequence_number: null,
      entity_id: null,
      error_pattern: null,
      source_trajectory_id: null,
      provenance: { ...fullDraft.provenance, source_run_id: null, interaction_id: null },
    };
    const message = draftToProto(sparse);
    assert.equal(message.session_id, undefined);
    assert.equal(message.provenance?.source_run_id, undefined);
    assert.deepEqual(draftFromProto(overTheWire(MemoryDraftMessage, message)), sparse);
  });

  it('a deprecation and a write result round-trip with every field', () => {
    const deprecation: Deprecation = {
      memory_id: '0190a000-0000-7000-8000-000000000001',
      superseded_by: '0190a000-0000-7000-8000-000000000002',
      reason: 'consolidated',
      agent_id: 'agent-1',
    };
    assert.deepEqual(
      deprecationFromProto(overTheWire(DeprecationMessage, deprecationToProto(deprecation))),
      deprecation,
    );
    assert.deepEqual(
      sortedKeys(deprecationToProto(deprecation)),
      sortedKeys(DeprecationMessage.fromPartial({})),
    );

    const result: WriteResult = {
      id: '0190a000-0000-7000-8000-000000000003',
      deduplicated: true,
      scope: 'global',
      content_flags: ['injection:system_override'],
      trust_level: 'privileged',
      memory_type: 'strategy',
      namespace: 'ns-2',
    };
    assert.deepEqual(
      writeResultFromProto(overTheWire(WriteResultMessage, writeResultToProto(result))),
      result,
    );
    assert.deepEqual(sortedKeys(writeResultToProto(result)), sortedKeys(WriteResultMessage.fromPartial({})));
    assert.deepEqual(sortedKeys(result), sortedKeys(WriteResultMessage.fromPartial({})));
  });
  it('memory-store attributes a draft sent without provenance to the calling key', () => {
    const message = draftToProto(fullDraft);
    delete message.provenance;
    assert.throws(() => draftFromProto(message), /without provenance/);
    const read = draftFromProto(message, { api_key_id: 'key-of-the-call' });
    assert.deepEqual(read.provenance, {
      channel: 'internal',
      kind: 'add',
      agent_id: fullDraft.agent_id,
      api_key_id: 'key-of-the-call',
      source_run_id: null,
      interaction_id: null,
      depth: 0,
      verdict: {},
      taint: [],
      policy_version: '',
    });
    // A provenance sent in full is kept as sent, defaults or not.
    assert.deepEqual(draftFromProto(draftToProto(fullDraft), { api_key_id: 'other' }), fullDraft);
  });
});
