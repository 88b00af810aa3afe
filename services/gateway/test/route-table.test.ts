import assert from 'node:assert/strict';
import { RouteTable, type RouteLookup } from '../src/route-table.ts';
import { GatewayError } from '../src/gateway-error.ts';
import { bindingRegistry, engramRegistry } from './fixtures/descriptors.ts';

function found(l: RouteLookup) {
  assert.equal(l.kind, 'found');
  return l;
}

describe('route-table (the real contracts)', () => {
  const table = RouteTable.fromRegistry(engramRegistry());
  const rpcOf = (method: string, path: string) => found(table.lookup(method, path)).route.grpcPath;

  it('routes every annotated RPC and nothing else', () => {
    const paths = table.routes.map((r) => r.grpcPath);
    assert.ok(paths.includes('/engram.ingest.v1.IngestService/AddMemory'));
    assert.ok(paths.includes('/engram.memory.v1.MemoryStoreService/ExportMemories'));
    for (const internal of ['MemoryWriterService', 'IngestInternal', 'ScanContent', 'grpc.health']) {
      assert.ok(!paths.some((p) => p.includes(internal)), `${internal} must not be routable`);
    }
    assert.equal(new Set(table.routes.map((r) => `${r.httpMethod} ${r.pattern}`)).size, table.routes.length);
  });

  it('lets literal paths beat /memories/{id} of other methods', () => {
    assert.equal(rpcOf('POST', '/memories/export'), '/engram.memory.v1.MemoryStoreService/ExportMemories');
    assert.equal(rpcOf('POST', '/memories/query'), '/engram.retrieval.v1.RetrievalService/Query');
    assert.equal(rpcOf('POST', '/memories/typed/query'), '/engram.retrieval.v1.RetrievalService/TypedQuery');
  });

  it('lets a longer literal template beat a shorter variable one', () => {
    const l = found(table.lookup('GET', '/memories/typed/episodic/session/s-1'));
    assert.equal(l.route.grpcPath, '/engram.memory.v1.MemoryStoreService/GetSessionTimeline');
    assert.deepEqual([...l.variables], [['session_id', 's-1']]);
    assert.equal(rpcOf('GET', '/memories/m-1'), '/engram.memory.v1.MemoryStoreService/GetMemory');
  });

  it('selects by exact HTTP method on one template', () => {
    assert.equal(rpcOf('PATCH', '/memories/m1'), '/engram.memory.v1.MemoryStoreService/RelabelMemory');
    assert.equal(rpcOf('DELETE', '/memories/m1'), '/engram.memory.v1.MemoryStoreService/DeleteMemory');
    assert.equal(
      rpcOf('POST', '/memories/m1/deprecate'),
      '/engram.memory.v1.MemoryStoreService/DeprecateMemory',
    );
  });

  it('answers method_not_allowed with the methods that would match', () => {
    assert.deepEqual(table.lookup('PUT', '/memories/m1'), {
      kind: 'method_not_allowed',
      allow: ['DELETE', 'GET', 'PATCH'],
    });
    // GET /memories/add is GET /memories/{id} with id "add": the RPC says whether it exists.
    assert.equal(rpcOf('GET', '/memories/add'), '/engram.memory.v1.MemoryStoreService/GetMemory');
    assert.deepEqual(table.lookup('GET', '/admin/projects'), { kind: 'method_not_allowed', allow: ['POST'] });
  });

  it('answers not_found for unknown paths', () => {
    for (const p of ['/', '/nope', '/memories', '/memories/m1/deprecate/x', 'memories/m1', '*']) {
      assert.deepEqual(table.lookup('GET', p), { kind: 'not_found' }, p);
    }
  });

  it('percent-decodes path variables and rejects malformed encoding with a 400', () => {
    assert.deepEqual([...found(table.lookup('GET', '/memories/a%2Fb%20c')).variables], [['id', 'a/b c']]);
    assert.throws(
      () => table.lookup('GET', '/memories/%E0%A4%A'),
      (err: unknown) =>
        err instanceof GatewayError && err.httpStatus === 400 && err.message.startsWith('id:'),
    );
  });
});

describe('route-table (test service)', () => {
  const table = RouteTable.fromRegistry(bindingRegistry());

  it('resolves dotted path variables to nested fields', () => {
    const l = found(table.lookup('GET', '/nested/n1/x'));
    assert.deepEqual(
      l.route.pathFields[0]!.fields.map((f) => f.name),
      ['inner', 'name'],
    );
  });

  it('binds {id=projects/*}, {id=**} and verbs', () => {
    assert.deepEqual(
      [...found(table.lookup('GET', '/v1/projects/p1/docs')).variables],
      [['id', 'projects/p1']],
    );
    assert.deepEqual([...found(table.lookup('GET', '/files/a/b%2Fc')).variables], [['id', 'a/b%2Fc']]);
    assert.equal(found(table.lookup('POST', '/things/t1:archive')).route.method.name, 'Archive');
    assert.equal(found(table.lookup('POST', '/things/t1')).route.method.name, 'Post');
  });

  it('marks server-streaming routes', () => {
    assert.equal(found(table.lookup('GET', '/watch/w1')).route.serverStreaming, true);
    assert.equal(found(table.lookup('GET', '/things/t1')).route.serverStreaming, false);
  });
});
