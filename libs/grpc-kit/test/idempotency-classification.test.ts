import assert from 'node:assert/strict';
import {
  createFileRegistry,
  fromBinary,
  getOption,
  hasOption,
  toBinary,
  type Message,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { HttpRule } from '@engram/proto/google/api/http';
import { Metadata } from '@grpc/grpc-js';
import {
  canonicalJson,
  forwardMetadata,
  IDEMPOTENCY_KEY_METADATA,
  idempotentWriteMethods,
  requestFingerprint,
} from '../src/index.ts';

/**
 * Which RPCs take an Idempotency-Key is read from the contract. These lists pin the outcome, so that
 * a new route (or a changed annotation) fails here until someone decides what it is.
 */
const WRITES = [
  '/engram.ace.v1.AceService/AddReflection',
  '/engram.ace.v1.AceService/ApplyDelta',
  '/engram.ace.v1.AceService/CompleteFeature',
  '/engram.ace.v1.AceService/CompleteRun',
  '/engram.ace.v1.AceService/Consolidate',
  '/engram.ace.v1.AceService/CreateFeature',
  '/engram.ace.v1.AceService/CreateSession',
  '/engram.ace.v1.AceService/FailFeature',
  '/engram.ace.v1.AceService/StartRun',
  '/engram.ace.v1.AceService/UpdateSession',
  '/engram.ace.v1.AceService/Vote',
  '/engram.admin.v1.AdminService/CreateKey',
  '/engram.admin.v1.AdminService/CreateProject',
  '/engram.admin.v1.AdminService/RevokeKey',
  '/engram.ingest.v1.IngestService/AddControl',
  '/engram.ingest.v1.IngestService/AddEpisodic',
  '/engram.ingest.v1.IngestService/AddMemory',
  '/engram.ingest.v1.IngestService/AddMemoryBatch',
  '/engram.ingest.v1.IngestService/AddProcedural',
  '/engram.ingest.v1.IngestService/AddSemantic',
  '/engram.ingest.v1.IngestService/ImportMemories',
  '/engram.memory.v1.MemoryStoreService/DeleteMemory',
  '/engram.memory.v1.MemoryStoreService/DeprecateMemory',
  '/engram.memory.v1.MemoryStoreService/RelabelMemory',
];

/** Reads that take a body (POST), declared idempotency_level = NO_SIDE_EFFECTS in proto/. */
const READS_WITH_A_BODY = [
  '/engram.ace.v1.AceService/Curate',
  '/engram.memory.v1.MemoryStoreService/ExportMemories',
  '/engram.retrieval.v1.RetrievalService/AgentPlaybook',
  '/engram.retrieval.v1.RetrievalService/Handoff',
  '/engram.retrieval.v1.RetrievalService/HybridQuery',
  '/engram.retrieval.v1.RetrievalService/LoadContext',
  '/engram.retrieval.v1.RetrievalService/Playbook',
  '/engram.retrieval.v1.RetrievalService/Query',
  '/engram.retrieval.v1.RetrievalService/TypedQuery',
  '/engram.security.v1.SecurityAdminService/Scan',
  '/engram.security.v1.SecurityAdminService/Verify',
];

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readDescriptorSet()));

/** Every public RPC bound to a verb other than GET (what the gateway routes as POST, PATCH, DELETE, ...). */
function nonGetRoutes(): string[] {
  const ext = registry.getExtension('google.api.http');
  assert.ok(ext?.message, 'the descriptor set declares google.api.http');
  const out: string[] = [];
  for (const file of registry.files) {
    for (const service of file.services) {
      for (const method of service.methods) {
        if (!hasOption(method, ext)) continue;
        const rule = HttpRule.decode(toBinary(ext.message, getOption(method, ext) as Message));
        if ([rule, ...rule.additional_bindings].some((r) => r.get === undefined)) {
          out.push(`/${service.typeName}/${method.name}`);
        }
      }
    }
  }
  return out.sort();
}

describe('which RPCs take an Idempotency-Key', () => {
  const writes = idempotentWriteMethods();

  it('every state-changing route of the contract, and nothing else', () => {
    assert.deepEqual([...writes].sort(), WRITES);
  });

  it('classifies every route that is not a GET: a write or a declared read', () => {
    assert.deepEqual(nonGetRoutes(), [...WRITES, ...READS_WITH_A_BODY].sort());
    for (const path of READS_WITH_A_BODY) {
      const [service, name] = path.slice(1).split('/');
      const method = registry.getService(service!)?.methods.find((m) => m.name === name);
      assert.equal(method?.idempotency, MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS, path);
    }
  });

  it('leaves out internal RPCs, which the service that took the key calls without it', () => {
    for (const internal of [
      '/engram.ingest.v1.IngestService/IngestInternal',
      '/engram.memory.v1.MemoryWriterService/PersistMemories',
      '/engram.memory.v1.MemoryWriterService/RecordAuditEvent',
    ]) {
      assert.equal(writes.has(internal), false, internal);
    }
    const incoming = new Metadata();
    incoming.set('authorization', 'Bearer k');
    incoming.set(IDEMPOTENCY_KEY_METADATA, 'retry-1');
    const onward = forwardMetadata(incoming, 'internal-token');
    assert.deepEqual(onward.get(IDEMPOTENCY_KEY_METADATA), []);
    assert.deepEqual(onward.get('authorization'), ['Bearer k']);
  });
});

describe('request fingerprints', () => {
  it('are the same for the same request whatever the order of its map keys', () => {
    const a = { content: 'x', metadata: { b: 1, a: { d: [1, 2], c: 'k' } }, scope: undefined };
    const b = { metadata: { a: { c: 'k', d: [1, 2] }, b: 1 }, content: 'x' };
    assert.equal(canonicalJson(a), '{"content":"x","metadata":{"a":{"c":"k","d":[1,2]},"b":1}}');
    assert.ok(requestFingerprint('/p.S/M', a).equals(requestFingerprint('/p.S/M', b)));
  });

  it('differ for another RPC, another value, another list order, other bytes', () => {
    const base = requestFingerprint('/p.S/M', { items: ['a', 'b'], raw: Buffer.from([1]) });
    for (const [method, request] of [
      ['/p.S/N', { items: ['a', 'b'], raw: Buffer.from([1]) }],
      ['/p.S/M', { items: ['b', 'a'], raw: Buffer.from([1]) }],
      ['/p.S/M', { items: ['a', 'b'], raw: Buffer.from([2]) }],
      ['/p.S/M', { items: ['a', 'b', ''], raw: Buffer.from([1]) }],
      ['/p.S/M', { items: ['a', 'b'], raw: Buffer.from([1]), extra: 0 }],
    ] as const) {
      assert.ok(!requestFingerprint(method, request).equals(base), JSON.stringify(request));
    }
  });
});
