import assert from 'node:assert/strict';
import { toJson } from '@bufbuild/protobuf';
import { bindRequest } from '../src/request-binding.ts';
import { RouteTable } from '../src/route-table.ts';
import { GatewayError } from '../src/gateway-error.ts';
import { bindingRegistry, engramRegistry } from './fixtures/descriptors.ts';

const registry = bindingRegistry();
const table = RouteTable.fromRegistry(registry);

/** Binds a request the way the gateway does and returns the message as proto-named JSON. */
function bind(method: string, pathAndQuery: string, body?: string | Buffer): unknown {
  const [path, qs] = pathAndQuery.split('?') as [string, string | undefined];
  const l = table.lookup(method, path);
  assert.equal(l.kind, 'found', `${method} ${path}`);
  if (l.kind !== 'found') throw new Error('unreachable');
  const msg = bindRequest(
    {
      route: l.route,
      variables: l.variables,
      query: new URLSearchParams(qs ?? ''),
      body: typeof body === 'string' ? Buffer.from(body) : body,
    },
    registry,
  );
  return toJson(l.route.method.input, msg, { registry, useProtoFieldName: true });
}

function rejects(fn: () => unknown, field: string, pattern?: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GatewayError, String(err));
    assert.equal(err.httpStatus, 400);
    assert.equal(err.reason, 'VALIDATION_FAILED');
    const bad = err.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
    assert.deepEqual((bad?.field_violations as { field: string }[])[0]?.field, field);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

describe('request-binding', () => {
  describe('query parameters (no body)', () => {
    it('binds scalars by field type', () => {
      assert.deepEqual(
        bind('GET', '/things?limit=5&flag=true&big_number=-9007199254740993&score=1.5&kind=KIND_B'),
        {
          limit: 5,
          flag: true,
          big_number: '-9007199254740993',
          score: 1.5,
          kind: 'KIND_B',
        },
      );
      assert.deepEqual(bind('GET', '/things?flag=0&kind=1'), { kind: 'KIND_A' });
    });

    it('binds repeated fields from repeated parameters, in order', () => {
      assert.deepEqual(bind('GET', '/things?tags=b&tags=a&tags=b'), { tags: ['b', 'a', 'b'] });
      assert.deepEqual(bind('GET', '/things?inner.nums=3&inner.nums=1'), { inner: { nums: [3, 1] } });
    });

    it('binds dotted names into nested messages, by proto or JSON name', () => {
      assert.deepEqual(bind('GET', '/things?inner.child.name=deep&bigNumber=7'), {
        inner: { child: { name: 'deep' } },
        big_number: '7',
      });
    });

    it('decodes query values (+ and percent-encoding)', () => {
      assert.deepEqual(bind('GET', '/things?tags=a+b&tags=%C3%A9%26x'), { tags: ['a b', 'é&x'] });
    });

    it('lets the path win over a query parameter for the same field', () => {
      assert.deepEqual(bind('GET', '/things/p1?id=q1&limit=2'), { id: 'p1', limit: 2 });
    });

    it('rejects unknown parameters, naming them', () => {
      rejects(() => bind('GET', '/things?nope=1'), 'nope', /unknown query parameter/);
      rejects(() => bind('GET', '/things?inner.nope=1'), 'inner.nope');
      rejects(() => bind('GET', '/things?limit.x=1'), 'limit.x');
    });

    it('rejects values of the wrong type, naming the parameter', () => {
      rejects(() => bind('GET', '/things?limit=ten'), 'limit', /int32/);
      rejects(() => bind('GET', '/things?limit=99999999999'), 'limit');
      rejects(() => bind('GET', '/things?flag=yes'), 'flag');
      rejects(() => bind('GET', '/things?score=abc'), 'score');
      rejects(() => bind('GET', '/things?kind=KIND_Z'), 'kind', /unknown enum value/);
    });

    it('rejects a singular parameter given twice and message-typed parameters', () => {
      rejects(() => bind('GET', '/things?limit=1&limit=2'), 'limit', /more than once/);
      rejects(() => bind('GET', '/things?inner=x'), 'inner');
      rejects(() => bind('GET', '/things?items=x'), 'items');
    });
  });

  describe('body "*"', () => {
    it('takes the JSON body as the request and overlays path variables (path wins)', () => {
      assert.deepEqual(bind('POST', '/things/p1', '{"id":"body-id","tags":["x"],"inner":{"name":"n"}}'), {
        id: 'p1',
        tags: ['x'],
        inner: { name: 'n' },
      });
    });

    it('ignores query parameters', () => {
      assert.deepEqual(bind('POST', '/things/p1?limit=3', '{}'), { id: 'p1' });
    });

    it('treats an empty body as an empty message', () => {
      assert.deepEqual(bind('POST', '/things/p1', ''), { id: 'p1' });
      assert.deepEqual(bind('POST', '/things/p1', '  \n'), { id: 'p1' });
    });

    it('accepts JSON names as well as proto names', () => {
      assert.deepEqual(bind('POST', '/things/p1', '{"bigNumber":"5"}'), { id: 'p1', big_number: '5' });
    });

    it('rejects malformed JSON and non-object bodies', () => {
      rejects(() => bind('POST', '/things/p1', '{"id":'), '', /not valid JSON/);
      for (const b of ['[]', '"x"', '1', 'null', 'true'])
        rejects(() => bind('POST', '/things/p1', b), '', /JSON object/);
      rejects(() => bind('POST', '/things/p1', Buffer.from([0x7b, 0xff, 0x7d])), '', /UTF-8/);
    });

    it('names unknown and mistyped fields with their path in the body', () => {
      rejects(() => bind('POST', '/things/p1', '{"bogus":1}'), 'bogus', /unknown field/);
      rejects(() => bind('POST', '/things/p1', '{"items":[{},{"name":"a","zzz":1}]}'), 'items[1].zzz');
      rejects(
        () => bind('POST', '/things/p1', '{"inner":{"child":{"nums":["x"]}}}'),
        'inner.child.nums',
        /int32/,
      );
      rejects(() => bind('POST', '/things/p1', '{"limit":"1.5e400"}'), 'limit');
      rejects(() => bind('POST', '/things/p1', '{"tags":"notalist"}'), 'tags');
    });
  });

  describe('body "<field>"', () => {
    it('binds the body to that field and the rest from the query', () => {
      assert.deepEqual(bind('PUT', '/things/p1?limit=4', '{"name":"n","nums":[1,2]}'), {
        id: 'p1',
        limit: 4,
        inner: { name: 'n', nums: [1, 2] },
      });
    });

    it('refuses query parameters inside the body field', () => {
      rejects(() => bind('PUT', '/things/p1?inner.name=x', '{}'), 'inner.name', /request body/);
    });
  });

  describe('path variables into nested fields', () => {
    it('sets inner.name from the path', () => {
      assert.deepEqual(bind('GET', '/nested/a%20b/x?inner.nums=1'), { inner: { name: 'a b', nums: [1] } });
    });
  });

  describe('on the real contracts', () => {
    it('binds GET /security/audit query parameters', () => {
      const reg = engramRegistry();
      const t = RouteTable.fromRegistry(reg);
      const l = t.lookup('GET', '/security/audit');
      assert.equal(l.kind, 'found');
      if (l.kind !== 'found') return;
      const msg = bindRequest(
        {
          route: l.route,
          variables: l.variables,
          query: new URLSearchParams('limit=20&agent_id=a1'),
          body: undefined,
        },
        reg,
      );
      assert.deepEqual(toJson(l.route.method.input, msg, { registry: reg, useProtoFieldName: true }), {
        agent_id: 'a1',
        limit: 20,
      });
    });
  });
});
