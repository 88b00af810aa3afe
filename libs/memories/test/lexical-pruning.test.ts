import assert from 'node:assert/strict';
import type { Reader } from '@engram/auth';
import type { Database } from '@engram/db';
import { vectorLiteral } from '@engram/embeddings';
import { uuidv7 } from '@engram/events';
import { lexicalSearchRounds, type LexicalOptions, type MemorySearch } from '@engram/memories';
import { ENGINES, type EngineDatabase } from '@engram/testing';
import { openMemoryStore } from './store.ts';

/**
 * Top-k pruning of the lexical channel is exact: on corpora of a dozen common words, where every
 * list is cut after a handful of rows, the pruned channel returns the exhaustive top 10 (same ids,
 * same order, ties by id, same scores), on short memories (average length below the reference
 * length of the stored impacts) and long ones (above it), with another agent's private memories
 * crowding the heads of the lists.
 */

const A: Reader = { projectId: 'p', agentId: 'a', seesAll: false };
const ADMIN: Reader = { projectId: 'p', agentId: 'admin', seesAll: true };
const WORDS = ['deploy', 'server', 'cache', 'queue', 'retry', 'token', 'backup', 'alert', 'shard', 'index'];
/** Small reads, so the lists of this corpus are cut: 4, 8 and 16 rows per term, then exhaustive. */
const PRUNED: LexicalOptions = { perTerm: 4, growth: 2, prunedRounds: 6, fullListDf: 0 };
const EXHAUSTIVE: LexicalOptions = { perTerm: Infinity };

/** A deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Memories of `min`..`max` words drawn from WORDS, a few word for word twice (equal scores). */
function corpus(seed: number, count: number, min: number, max: number): string[] {
  const rnd = random(seed);
  const docs: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 25 === 24) {
      docs.push(docs[i - 1]!);
      continue;
    }
    const len = min + Math.floor(rnd() * (max - min + 1));
    // Skewed: early words are more frequent, so lists differ in length and weight.
    docs.push(Array.from({ length: len }, () => WORDS[Math.floor(rnd() ** 2 * WORDS.length)]).join(' '));
  }
  return docs;
}

const QUERIES = [
  'deploy',
  'deploy server',
  'cache queue',
  'retry token backup',
  'alert shard index',
  'server cache retry',
  'queue backup index deploy',
  'token alert',
  'shard',
  'index backup',
  'deploy cache token shard',
  'server queue alert',
];

for (const engine of ENGINES) {
  describe(`lexical channel: exact top-k pruning (${engine})`, function () {
    this.timeout(120_000);
    let store: EngineDatabase | undefined;
    let db: Database;
    const privateIds = new Set<string>();

    before(async () => {
      store = await openMemoryStore(engine);
      db = store.db;
      const row = (namespace: string, content: string, agent: string, scope: string) => {
        const id = uuidv7();
        return {
          id,
          project_id: 'p',
          namespace,
          agent_id: agent,
          content,
          content_key: id,
          memory_type: 'fact',
          scope,
          trust_level: 'verified',
          embedding: vectorLiteral([1, 0, 0]),
        };
      };
      for (const [namespace, seed, min, max] of [
        ['short', 1, 1, 6],
        ['long', 2, 20, 60],
      ] as const) {
        const rows = corpus(seed, 600, min, max).map((c, i) =>
          row(namespace, c, `agent-${i % 3}`, i % 7 === 0 ? 'agent-private' : 'global'),
        );
        // Another agent's private memories, each term many times in a short memory: the heads of the lists.
        const crowd = WORDS.flatMap((w) =>
          Array.from({ length: 12 }, () => row(namespace, `${w} ${w} ${w}`, 'b', 'agent-private')),
        );
        for (const r of crowd) privateIds.add(r.id);
        // Reader a's own private memories count for a.
        rows.push(row(namespace, 'deploy deploy cache', 'a', 'agent-private'));
        await db.knex('memories').insert([...rows, ...crowd]);
      }
      await db.knex.raw('analyze memory_postings');
    });
    after(async () => {
      await store?.close();
    });

    const search = (namespace: string, text: string, over: Partial<MemorySearch> = {}): MemorySearch => ({
      reader: A,
      namespace,
      vector: [1, 0, 0],
      text,
      memoryTypes: [],
      scopes: [],
      authors: [],
      ...over,
    });
    const ranking = (hits: readonly { id: string; lexicalScore?: number }[]) =>
      hits.map((h) => `${h.id} ${h.lexicalScore!.toFixed(9)}`);

    for (const namespace of ['short', 'long']) {
      it(`returns the exhaustive top 10 from cut lists (${namespace} memories)`, async () => {
        const rounds: number[] = [];
        for (const text of QUERIES) {
          const pruned = await lexicalSearchRounds(db.read, search(namespace, text), 10, PRUNED);
          const full = await lexicalSearchRounds(db.read, search(namespace, text), 10, EXHAUSTIVE);
          assert.equal(full.hits.length, 10, text);
          assert.deepEqual(ranking(pruned.hits), ranking(full.hits), text);
          for (const h of pruned.hits)
            assert.ok(!privateIds.has(h.id), `b's private memory reached a: ${text}`);
          rounds.push(pruned.rounds);
        }
        // The corpus exercises the bound: some queries were proven exact on cut lists, some took more.
        assert.ok(
          rounds.some((r) => r <= PRUNED.prunedRounds!),
          `every query fell back to the exhaustive round: ${rounds.join(',')}`,
        );
        assert.ok(
          rounds.some((r) => r > 1),
          `no query needed a second round: ${rounds.join(',')}`,
        );
      });
    }

    it('stays exact with filters, for a privileged reader and for a top 1', async () => {
      for (const text of QUERIES) {
        for (const [over, limit] of [
          [{ authors: ['agent-1', 'a'] }, 10],
          [{ reader: ADMIN }, 10],
          [{}, 1],
        ] as const) {
          const q = search('long', text, over);
          const pruned = await lexicalSearchRounds(db.read, q, limit, PRUNED);
          const full = await lexicalSearchRounds(db.read, q, limit, EXHAUSTIVE);
          assert.deepEqual(ranking(pruned.hits), ranking(full.hits), `${text} ${JSON.stringify(over)}`);
        }
      }
    });

    it('needs one round when no list is cut', async () => {
      const r = await lexicalSearchRounds(db.read, search('short', 'deploy server'), 10);
      assert.equal(r.rounds, 1);
      assert.equal(r.hits.length, 10);
      assert.deepEqual(await lexicalSearchRounds(db.read, search('short', 'deploy'), 0), {
        hits: [],
        rounds: 0,
        exact: true,
      });
    });

    it('under a budget of one round (the service default) stops there, and says when the answer is not proven', async () => {
      const verdicts: boolean[] = [];
      for (const text of QUERIES) {
        const q = search('long', text);
        // As the service reads: at least as many postings per term as it returns (4 x limit there).
        const opts = { ...PRUNED, perTerm: 10 };
        const budget = await lexicalSearchRounds(db.read, q, 10, { ...opts, maxRounds: 1 });
        const exact = await lexicalSearchRounds(db.read, q, 10, opts);
        assert.equal(budget.rounds, 1, text);
        assert.equal(budget.hits.length, 10, text);
        for (const h of budget.hits)
          assert.ok(!privateIds.has(h.id), `b's private memory reached a: ${text}`);
        // Proven exact means the exhaustive answer; an unproven one is the best the round read.
        if (budget.exact) assert.deepEqual(ranking(budget.hits), ranking(exact.hits), text);
        assert.equal(exact.exact, true, text);
        verdicts.push(budget.exact);
      }
      assert.ok(verdicts.includes(false), 'some query on cut lists is not proven in one round');
    });
  });
}
