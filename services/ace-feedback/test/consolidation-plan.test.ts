import assert from 'node:assert/strict';
import type { Principal, Reader } from '@engram/auth';
import type { StoredMemory } from '@engram/memory-model';
import { consolidate } from '../src/domain/consolidation.ts';
import type { MemoryLookup, ReadScreen, SimilarPair } from '../src/domain/ports.ts';

const memory = (id: string, agent: string, created: number): StoredMemory => ({
  id,
  project_id: 'p',
  namespace: 'default',
  agent_id: agent,
  content: id,
  memory_type: 'strategy',
  scope: 'global',
  trust_level: 'internal',
  metadata: {},
  content_flags: [],
  shared_with: [],
  is_deprecated: false,
  superseded_by: null,
  deprecation_reason: null,
  session_id: null,
  sequence_number: null,
  entity_id: null,
  error_pattern: null,
  source_trajectory_id: null,
  integrity_hash: null,
  created_at: new Date(created),
  updated_at: new Date(created),
});

function lookup(pairs: SimilarPair[], rows: StoredMemory[], scores: Record<string, number>): MemoryLookup {
  return {
    visibleIds: () => Promise.resolve(new Set()),
    byIds: (_r: Reader, ids: readonly string[]) => Promise.resolve(rows.filter((r) => ids.includes(r.id))),
    deepestProvenance: () => Promise.resolve(undefined),
    byEffectiveness: () => Promise.resolve([]),
    similarPairs: () => Promise.resolve(pairs),
    effectiveness: (_p: string, ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, { helpful: 0, harmful: 0, score: scores[id] ?? 0 }]))),
  };
}

const principal: Principal = {
  projectId: 'p',
  keyId: 'k',
  trust: 'internal',
  boundAgentId: 'me',
  instanceAdmin: false,
};
const unused = {
  pipeline: { ingest: () => Promise.reject(new Error('dry runs write nothing')) },
  deprecator: { deprecate: () => Promise.reject(new Error('dry runs write nothing')) },
  log: { record: () => Promise.reject(new Error('dry runs write nothing')) },
};

/** Verification as the plan sees it: the ids listed fail, every other row verifies. */
function screenFailing(...failing: string[]): ReadScreen {
  return {
    screen: (rows) => Promise.resolve(rows.filter((r) => !failing.includes(r.id))),
    trusted: <T extends StoredMemory>(rows: readonly T[]) =>
      Promise.resolve({
        trusted: rows.filter((r) => !failing.includes(r.id)),
        untrusted: rows.filter((r) => failing.includes(r.id)).map((row) => ({ row, status: 'invalid' })),
      }),
  };
}

const consolidatePlan = (memories: MemoryLookup, who: Principal, screen: ReadScreen) =>
  consolidate(
    { memories, screen, ...unused },
    who,
    {},
    {
      namespace: '',
      agentId: '',
      dryRun: true,
      useLlm: false,
    },
  );
const plan = async (memories: MemoryLookup, who: Principal = principal) =>
  (await consolidatePlan(memories, who, screenFailing())).merges.map((m) => `${m.keptId}<-${m.deprecatedId}`);

describe('consolidation plan', () => {
  it('keeps the more effective memory and folds every duplicate into it, most similar first', async () => {
    const rows = [memory('a', 'me', 1), memory('b', 'me', 2), memory('c', 'me', 3)];
    const pairs = [
      { a: 'a', b: 'b', similarity: 0.99 },
      { a: 'b', b: 'c', similarity: 0.98 },
      { a: 'a', b: 'c', similarity: 0.97 },
    ];
    assert.deepEqual(await plan(lookup(pairs, rows, { a: 0.5 })), ['a<-b', 'a<-c']);
  });

  it('never deprecates a memory it keeps for another pair, and breaks ties by age', async () => {
    const rows = [memory('a', 'me', 1), memory('b', 'me', 2), memory('c', 'me', 3)];
    const pairs = [
      { a: 'a', b: 'b', similarity: 0.99 },
      { a: 'b', b: 'c', similarity: 0.98 },
    ];
    // b beats a; c beats b, but b is already kept, so the second pair is skipped.
    assert.deepEqual(await plan(lookup(pairs, rows, { b: 0.2, c: 0.6 })), ['b<-a']);
    // All tied: the older memory is kept.
    assert.deepEqual(await plan(lookup([{ a: 'b', b: 'c', similarity: 0.95 }], rows, {})), ['b<-c']);
  });

  it('deprecates only what the caller may modify, unless it is privileged', async () => {
    const rows = [memory('a', 'me', 1), memory('b', 'someone', 2)];
    const pairs = [{ a: 'a', b: 'b', similarity: 0.99 }];
    assert.deepEqual(await plan(lookup(pairs, rows, {})), []);
    const admin: Principal = { projectId: 'p', keyId: 'k', trust: 'privileged', instanceAdmin: false };
    assert.deepEqual(await plan(lookup(pairs, rows, {}), admin), ['a<-b']);
  });

  it('leaves memories that fail verification out of every pair, and reports them', async () => {
    const rows = [memory('a', 'me', 1), memory('b', 'me', 2), memory('c', 'me', 3)];
    const pairs = [
      { a: 'a', b: 'b', similarity: 0.99 },
      { a: 'a', b: 'c', similarity: 0.98 },
      { a: 'b', b: 'c', similarity: 0.97 },
    ];
    // a is the most effective and would be kept for both of its pairs.
    const out = await consolidatePlan(lookup(pairs, rows, { a: 0.9 }), principal, screenFailing('a'));
    assert.deepEqual(
      out.merges.map((m) => `${m.keptId}<-${m.deprecatedId}`),
      ['b<-c'],
    );
    assert.deepEqual(out.unverifiedIds, ['a']);
  });
});
