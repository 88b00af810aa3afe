import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

/**
 * One finished span in the shape both cross-service tracing tests read: spans from the in-memory
 * exporter (embedded mode) and from OTLP/JSON requests (separate processes) are turned into this.
 */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** service.name of the process that recorded it. */
  readonly service: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly error: boolean;
}

/** A W3C traceparent the test sends with its request, so it knows the trace id to look for. */
export function newTraceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

/** The spans of one add, found by role; assertTraceOfAdd checks they form one linked tree. */
export interface TraceOfAdd {
  readonly gateway: SpanRecord;
  readonly ingest: SpanRecord;
  readonly store: SpanRecord;
  readonly db: readonly SpanRecord[];
  readonly all: readonly SpanRecord[];
}

/**
 * Asserts that the spans of `traceId` hold one tree for POST /memories/add: the gateway's HTTP span
 * (child of the caller's span), ingest-security's AddMemory server span under it, memory-store's
 * PersistMemories server span under that, and database spans under memory-store. Every span of the
 * trace has its parent in the trace, except the gateway span whose parent is the caller's.
 */
export function assertTraceOfAdd(
  spans: readonly SpanRecord[],
  ids: { traceId: string; parentId: string },
): TraceOfAdd {
  const all = spans.filter((s) => s.traceId === ids.traceId);
  const list = () => all.map((s) => `${s.service}:${s.kind}:${s.name}`).join(', ');
  const byId = new Map(all.map((s) => [s.spanId, s]));
  const find = (what: string, pred: (s: SpanRecord) => boolean) => {
    const found = all.find(pred);
    assert.ok(found, `no ${what} span in the trace: ${list()}`);
    return found;
  };
  const gateway = find('gateway', (s) => s.kind === 'server' && s.attributes['http.route'] !== undefined);
  assert.equal(gateway.parentSpanId, ids.parentId, 'the gateway continues the caller trace');
  assert.match(gateway.name, /^POST \/.*memories\/add$/);
  assert.equal(gateway.attributes['http.request.method'], 'POST');
  assert.equal(gateway.attributes['http.response.status_code'], 200);
  const ingest = find(
    'ingest-security',
    (s) => s.kind === 'server' && s.attributes['rpc.service'] === 'engram.ingest.v1.IngestService',
  );
  assert.equal(ingest.attributes['rpc.method'], 'AddMemory');
  assert.equal(ingest.attributes['rpc.grpc.status_code'], 0);
  const store = find(
    'memory-store',
    (s) => s.kind === 'server' && s.attributes['rpc.method'] === 'PersistMemories',
  );
  assert.equal(store.attributes['rpc.service'], 'engram.memory.v1.MemoryWriterService');

  for (const s of all) {
    if (s === gateway) continue;
    assert.ok(
      s.parentSpanId !== undefined && byId.has(s.parentSpanId),
      `${s.name} has its parent in the trace`,
    );
  }
  const ancestors = (s: SpanRecord): SpanRecord[] => {
    const out: SpanRecord[] = [];
    for (let p = byId.get(s.parentSpanId ?? ''); p !== undefined; p = byId.get(p.parentSpanId ?? ''))
      out.push(p);
    return out;
  };
  assert.ok(ancestors(ingest).includes(gateway), 'ingest-security under the gateway');
  assert.ok(ancestors(store).includes(ingest), 'memory-store under ingest-security');
  const db = all.filter((s) => s.attributes['db.system.name'] === 'postgresql');
  assert.ok(
    db.some((s) => ancestors(s).includes(store)),
    `a database span under memory-store: ${list()}`,
  );
  for (const s of db) {
    assert.equal(s.kind, 'client');
    assert.match(String(s.attributes['db.operation.name']), /^[A-Z]+$/);
    assert.equal(s.attributes['db.query.text'], undefined);
  }
  return { gateway, ingest, store, db, all };
}

/** Asserts that no secret string appears anywhere in `exported` (span names, attributes, resources...). */
export function assertNothingSecret(exported: string, secrets: Readonly<Record<string, string>>): void {
  for (const [what, value] of Object.entries(secrets)) {
    assert.ok(!exported.includes(value), `the ${what} appears in the exported spans`);
  }
}
