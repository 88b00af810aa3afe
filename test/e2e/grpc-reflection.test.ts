import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Metadata, status as Status } from '@grpc/grpc-js';
import { loadEngramConfig } from '@engram/config';
import { createClient, isServiceError, unary } from '@engram/grpc-kit';
import { composeIngestSecurity } from '@engram/ingest-security';
import { createLogger } from '@engram/logger';
import { configuredPeers, serveServices, ServiceProcess } from '@engram/platform';
import { IngestServiceClient } from '@engram/proto/engram/ingest/v1/ingest';
import { ReflectionClient, type ReflectionResponse } from './reflection-client.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const EVERY_SERVICE = [
  'engram.ace.v1.AceService',
  'engram.admin.v1.AdminService',
  'engram.ingest.v1.IngestService',
  'engram.memory.v1.MemoryStoreService',
  'engram.memory.v1.MemoryWriterService',
  'engram.retrieval.v1.RetrievalService',
  'engram.security.v1.SecurityAdminService',
  'grpc.health.v1.Health',
];

function filesOf(res: ReflectionResponse): FileDescriptorProto[] {
  if (!res.file_descriptor_response) throw new Error(`no file_descriptor_response: ${JSON.stringify(res)}`);
  return res.file_descriptor_response.file_descriptor_proto.map((b) =>
    fromBinary(FileDescriptorProtoSchema, b),
  );
}

/**
 * What grpcurl `describe` does: the file that defines the symbol, then every import the server did
 * not send along, by file name, until the set is closed; then resolve every type. A registry that
 * builds proves that the served descriptors are complete and consistent.
 */
async function describeSymbol(client: ReflectionClient, symbol: string): Promise<FileRegistry> {
  const files = new Map<string, FileDescriptorProto>();
  const add = (res: ReflectionResponse) => filesOf(res).forEach((f) => files.set(f.name, f));
  const first = await client.ask({ file_containing_symbol: symbol });
  add(first);
  for (;;) {
    const missing = [...new Set([...files.values()].flatMap((f) => f.dependency))].filter(
      (d) => !files.has(d),
    );
    if (missing.length === 0) break;
    for (const name of missing) add(await client.ask({ file_by_filename: name }));
  }
  // The first file of the answer is the one that defines the symbol; its imports come from the map.
  return createFileRegistry(filesOf(first)[0]!, (name) => files.get(name));
}

async function assertIngestServiceDescribed(client: ReflectionClient): Promise<void> {
  const registry = await describeSymbol(client, 'engram.ingest.v1.IngestService');
  const service = registry.getService('engram.ingest.v1.IngestService');
  assert.ok(service, 'IngestService resolves');
  const add = service.methods.find((m) => m.name === 'AddMemory');
  assert.ok(add, 'AddMemory is described');
  assert.equal(add.input.typeName, 'engram.ingest.v1.AddMemoryRequest');
  assert.ok(add.input.fields.some((f) => f.name === 'content'));
  assert.equal(add.output.typeName, 'engram.memory.v1.WriteResult', 'imported types resolve');
}

describe('gRPC server reflection on the embedded server (every service, no API key)', function () {
  this.timeout(60_000);
  let t: TestEngram;
  const clients: ReflectionClient[] = [];
  const reflection = (version: 'v1' | 'v1alpha' = 'v1') => {
    const c = new ReflectionClient(t.grpcAddress, version);
    clients.push(c);
    return c;
  };

  before(async () => {
    t = await startTestEngram('pglite');
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await t?.stop();
  });

  for (const version of ['v1', 'v1alpha'] as const) {
    it(`lists every Engram service and grpc.health.v1.Health (grpc.reflection.${version})`, async () => {
      assert.deepEqual(await reflection(version).listServices(), EVERY_SERVICE);
    });
  }

  it('serves complete descriptors: IngestService, its messages and their imports resolve', async () => {
    await assertIngestServiceDescribed(reflection());
  });

  it('describes the health service too', async () => {
    const registry = await describeSymbol(reflection('v1alpha'), 'grpc.health.v1.Health');
    assert.deepEqual(
      registry.getService('grpc.health.v1.Health')?.methods.map((m) => m.name),
      ['Check', 'Watch'],
    );
  });

  it('answers an unknown symbol with NOT_FOUND in the stream, not a broken call', async () => {
    const res = await reflection().ask({ file_containing_symbol: 'engram.nope.v1.Nothing' });
    assert.equal(res.error_response?.error_code, Status.NOT_FOUND);
  });

  it('needs no key, while the services on the same port still do', async () => {
    const client = createClient(IngestServiceClient, t.grpcAddress);
    try {
      await assert.rejects(
        unary(client.scanContent.bind(client), { content: 'hello', metadata: undefined }, new Metadata()),
        (err: unknown) => isServiceError(err) && err.code === Status.UNAUTHENTICATED,
      );
    } finally {
      client.close();
    }
  });
});

describe('gRPC server reflection on one service process (ingest-security via serveServices)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let proc: ServiceProcess | undefined;
  let client: ReflectionClient;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'engram-reflection-'));
    const config = loadEngramConfig({
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_GRPC_PORT: '0',
      SERVICE_API_KEY: 'egk_test_' + randomBytes(24).toString('base64url'),
      SERVICE_INTEGRITY_KEY: randomBytes(32).toString('base64url'),
      ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    });
    proc = await ServiceProcess.open({
      config,
      service: 'ingest-security',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const { port } = await serveServices(proc, await composeIngestSecurity(proc, configuredPeers(config)));
    client = new ReflectionClient(`127.0.0.1:${port}`);
  });
  after(async () => {
    client?.close();
    await proc?.runtime.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists exactly what this process hosts: IngestService and Health', async () => {
    assert.deepEqual(await client.listServices(), [
      'engram.ingest.v1.IngestService',
      'grpc.health.v1.Health',
    ]);
  });

  it('serves complete descriptors for IngestService', async () => {
    await assertIngestServiceDescribed(client);
  });
});
