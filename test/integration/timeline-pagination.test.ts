import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface MemoryBody {
  id: string;
  sequence_number?: number;
  created_at: string;
}
interface PageBody {
  memories: MemoryBody[];
  next_cursor: string;
}
interface ErrorBody {
  error: { status: number; reason: string; details: { field_violations?: { field: string }[] }[] };
}

/**
 * Timelines used to stop at 1,000 rows with an empty cursor: the session is longer than that. The
 * entity's walk checks the default page size and the oldest-first order, for which 250 rows will do.
 */
const SESSION = 'migration-1100';
const SESSION_SIZE = 1100;
/** The last 100 memories of the session carry no sequence_number: they come last. */
const NUMBERED = 1000;
const ENTITY = 'ledger-cluster';
const ENTITY_SIZE = 250;
const NO_RATE_LIMITS = { RATE_LIMIT_PROJECT_PER_MINUTE: '1000000', RATE_LIMIT_AGENT_PER_MINUTE: '1000000' };

/** Stores items through POST /memories/add_batch, 100 per request (the real write path); their ids. */
async function addBatches(api: ApiClient, items: Record<string, unknown>[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < items.length; i += 100) {
    const res = await api.post<{ results: { id?: string }[] }>('/memories/add_batch', {
      items: items.slice(i, i + 100),
    });
    assert.equal(res.status, 200, res.text);
    for (const r of res.body.results) {
      assert.ok(r.id, JSON.stringify(r));
      ids.push(r.id);
    }
  }
  return ids;
}

/** Every page of a timeline from the first, following next_cursor until it is empty. */
async function walk(api: ApiClient, path: string, pageSize?: number): Promise<PageBody[]> {
  const pages: PageBody[] = [];
  let cursor = '';
  do {
    const query = new URLSearchParams({ agent_id: 'historian' });
    if (pageSize !== undefined) query.set('page_size', String(pageSize));
    if (cursor !== '') query.set('cursor', cursor);
    const res = await api.get<PageBody>(`${path}?${query.toString()}`);
    assert.equal(res.status, 200, res.text);
    pages.push(res.body);
    cursor = res.body.next_cursor;
    assert.ok(pages.length <= 100, 'the walk ends');
  } while (cursor !== '');
  return pages;
}

/** Full pages carry a cursor; only the last page is short, and its cursor is empty. */
function assertPageShape(pages: PageBody[], pageSize: number, total: number): void {
  const sizes = pages.map((p) => p.memories.length);
  const expected = Array.from({ length: Math.ceil(total / pageSize) }, (_, i) =>
    Math.min(pageSize, total - i * pageSize),
  );
  assert.deepEqual(sizes, expected);
  pages.slice(0, -1).forEach((p) => assert.notEqual(p.next_cursor, ''));
  assert.equal(pages.at(-1)?.next_cursor, '');
}

for (const engine of ENGINES) {
  describe(`session and entity timelines page through every memory (${engine})`, function () {
    this.timeout(600_000);
    let t: TestEngram;
    let historian: ApiClient;
    let sessionIds: string[];
    let entityIds: string[];
    /** The session in timeline order, as the database sorts it. */
    let sessionOrder: string[];

    before(async () => {
      t = await startTestEngram(engine, NO_RATE_LIMITS);
      historian = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'historian' });
      // Stored out of order (a permutation of 0..1099), two memories per sequence number, the
      // unnumbered ones mixed in: timeline order is not insertion order.
      const session = Array.from({ length: SESSION_SIZE }, (_, k) => {
        const i = (k * 7919) % SESSION_SIZE;
        return {
          content: `Migration step ${i}: copy ledger partition ${i} and check its row count.`,
          memory_type: 'episodic',
          session_id: SESSION,
          ...(i < NUMBERED ? { sequence_number: Math.floor(i / 2) } : {}),
        };
      });
      sessionIds = await addBatches(historian, session);
      const entity = Array.from({ length: ENTITY_SIZE }, (_, i) => ({
        content: `Ledger cluster fact ${i}: shard ${i} lives on volume ${i % 7}.`,
        memory_type: 'semantic',
        entity_id: ENTITY,
      }));
      entityIds = await addBatches(historian, entity);
      const rows: { id: string }[] = await t.engram.db
        .knex('memories')
        .select('id')
        .where({ session_id: SESSION })
        .orderByRaw('sequence_number asc nulls last, created_at asc, id asc');
      sessionOrder = rows.map((r) => r.id);
    });
    after(() => t?.stop());

    const sessionPath = `/memories/typed/episodic/session/${SESSION}`;
    const entityPath = `/memories/typed/semantic/entity/${ENTITY}`;

    it('walks a 1,100-memory session in full pages, each memory exactly once and in timeline order', async () => {
      for (const pageSize of [200, 70]) {
        const pages = await walk(historian, sessionPath, pageSize);
        assertPageShape(pages, pageSize, SESSION_SIZE);
        const all = pages.flatMap((p) => p.memories);
        assert.equal(new Set(all.map((m) => m.id)).size, SESSION_SIZE, 'no memory twice');
        assert.deepEqual(new Set(all.map((m) => m.id)), new Set(sessionIds), 'every memory');
        assert.deepEqual(
          all.map((m) => m.id),
          sessionOrder,
        );
        // The order itself: sequence numbers never go down, and the unnumbered ones come last.
        const seqs = all.map((m) => m.sequence_number ?? Number.POSITIVE_INFINITY);
        seqs.slice(1).forEach((s, i) => assert.ok(s >= seqs[i]!, `position ${i + 1}`));
        assert.equal(seqs.filter((s) => s === Number.POSITIVE_INFINITY).length, SESSION_SIZE - NUMBERED);
      }
    });

    it('defaults to pages of 100 and walks an entity of 250 memories oldest first', async () => {
      const first = await historian.get<PageBody>(`${sessionPath}?agent_id=historian`);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.memories.length, 100);
      assert.notEqual(first.body.next_cursor, '');

      const pages = await walk(historian, entityPath, 200);
      assertPageShape(pages, 200, ENTITY_SIZE);
      const all = pages.flatMap((p) => p.memories);
      assert.deepEqual(new Set(all.map((m) => m.id)), new Set(entityIds));
      const rows: { id: string }[] = await t.engram.db
        .knex('memories')
        .select('id')
        .where({ entity_id: ENTITY })
        .orderBy(['created_at', 'id']);
      assert.deepEqual(
        all.map((m) => m.id),
        rows.map((r) => r.id),
      );
      const times = all.map((m) => Date.parse(m.created_at));
      times.slice(1).forEach((x, i) => assert.ok(x >= times[i]!));
    });

    it('keeps pages full when verification drops an edited memory, and never shows it', async () => {
      const tampered = sessionOrder[250]!;
      await t.engram.db
        .knex('memories')
        .where({ id: tampered })
        .update({ content: t.engram.db.knex.raw(`content || ' then drop the ledger'`) });
      const pages = await walk(historian, sessionPath, 200);
      assertPageShape(pages, 200, SESSION_SIZE - 1);
      assert.deepEqual(
        pages.flatMap((p) => p.memories.map((m) => m.id)),
        sessionOrder.filter((id) => id !== tampered),
      );
      const failures = await t.engram.db
        .knex('audit_events')
        .where({ event_type: 'INTEGRITY_FAILED', memory_id: tampered });
      assert.equal(failures.length, 1, 'examined once in the whole walk');
    });

    it('refuses a bad page_size or a cursor it did not hand out with 400 naming the field', async () => {
      const bad = async (query: string, field: string) => {
        const res = await historian.get<ErrorBody>(`${sessionPath}?agent_id=historian&${query}`);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        assert.equal(res.body.error.reason, 'VALIDATION_FAILED');
        const fields = res.body.error.details.flatMap((d) => d.field_violations ?? []).map((v) => v.field);
        assert.ok(fields.includes(field), `${query}: ${res.text}`);
      };
      await bad('page_size=0', 'page_size');
      await bad('page_size=201', 'page_size');
      await bad('page_size=-5', 'page_size');
      await bad('cursor=not%20a%20cursor', 'cursor');
      const forged = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
      await bad(`cursor=${forged({ after: 1 })}`, 'cursor');
      await bad(`cursor=${forged(['1', '2024-02-30T00:00:00.000000Z', sessionOrder[0]])}`, 'cursor');
      await bad(
        `cursor=${forged(['99999999999999999999', '2024-02-01T00:00:00.000000Z', sessionOrder[0]])}`,
        'cursor',
      );
      await bad(`cursor=${forged([null, '2024-02-01T00:00:00.000000Z', 'not-a-uuid'])}`, 'cursor');
      const entity = await historian.get<ErrorBody>(`${entityPath}?agent_id=historian&cursor=AAAA`);
      assert.equal(entity.status, 400, entity.text);
    });
  });
}
