import assert from 'node:assert/strict';
import type { ApiClient } from '@engram/testing';

export interface MemoryBody {
  id: string;
  content: string;
  agent_id: string;
  memory_type: string;
  scope: string;
  namespace: string;
  trust_level: string;
  session_id?: string;
  entity_id?: string;
  score?: number;
  relevance_score?: number;
  tokens?: number;
  integrity_status?: string;
}

export interface ErrorBody {
  error: {
    status: number;
    reason: string;
    details: { field_violations?: { field: string; reason: string }[] }[];
  };
}

/** Settings every retrieval suite uses: no rate limit gets in the way of fixtures. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
  RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
};

/** Adds one memory through the gateway and returns its id. */
export async function add(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const res = await api.post<{ id: string }>('/memories/add', body);
  assert.equal(res.status, 200, res.text);
  return res.body.id;
}

/** Adds many memories through /memories/add_batch (100 per request); returns their ids in order. */
export async function addMany(api: ApiClient, items: Record<string, unknown>[]): Promise<string[]> {
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

export async function search(
  api: ApiClient,
  path: string,
  body: Record<string, unknown>,
): Promise<MemoryBody[]> {
  const res = await api.post<{ memories: MemoryBody[] }>(path, body);
  assert.equal(res.status, 200, res.text);
  return res.body.memories;
}
