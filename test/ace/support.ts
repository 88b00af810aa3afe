import assert from 'node:assert/strict';
import { type ApiClient } from '@engram/testing';
import { type TestEngram } from '@engram/all-in-one/testing';

export interface ErrorBody {
  error: { code: string; status: number; reason: string; message: string; details: unknown[] };
}

export interface MemoryBody {
  id: string;
  content: string;
  agent_id: string;
  memory_type: string;
  scope: string;
  metadata: Record<string, unknown>;
  is_deprecated: boolean;
  superseded_by?: string;
  deprecation_reason?: string;
  error_pattern?: string;
  source_trajectory_id?: string;
  effectiveness_score?: number;
}

export interface RunBody {
  run_id: string;
  agent_id: string;
  task_type: string;
  memory_ids_used: string[];
  status: string;
  success?: boolean;
  evaluation?: Record<string, unknown>;
  reflection_id?: string;
  started_at: string;
  completed_at?: string;
}

export interface VoteBody {
  memory_id: string;
  helpful: number;
  harmful: number;
  effectiveness_score: number;
}

/** Adds a memory through the public API and returns its id. */
export async function addMemory(client: ApiClient, body: Record<string, unknown>): Promise<string> {
  const res = await client.post<{ id: string }>('/memories/add', body);
  assert.equal(res.status, 200, res.text);
  return res.body.id;
}

/** The error reason of a failed response (asserting the status first). */
export function expectError(
  res: { status: number; body: unknown; text: string },
  status: number,
  reason?: string,
): void {
  assert.equal(res.status, status, res.text);
  if (reason !== undefined) assert.equal((res.body as ErrorBody).error.reason, reason, res.text);
}

/** The votes stored for a memory, as (voter, task_id, vote) triples. */
export async function votesOf(
  t: TestEngram,
  memoryId: string,
): Promise<{ voter_agent_id: string; task_id: string; vote: string }[]> {
  return t.engram.db
    .knex('memory_votes')
    .select('voter_agent_id', 'task_id', 'vote')
    .where({ memory_id: memoryId })
    .orderBy(['voter_agent_id', 'task_id']);
}

/** Audit events of one type about one memory. */
export async function eventsOf(
  t: TestEngram,
  type: string,
  memoryId?: string,
): Promise<{ details: Record<string, unknown> }[]> {
  const q = t.engram.db.knex('audit_events').select('details').where({ event_type: type });
  if (memoryId !== undefined) void q.where({ memory_id: memoryId });
  const rows = (await q) as { details: Record<string, unknown> | string }[];
  return rows.map((r) => ({
    details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
  }));
}

/** The provenance record of a memory (kind, depth, source run). */
export async function provenanceOf(
  t: TestEngram,
  memoryId: string,
): Promise<{ kind: string; depth: number; source_run_id: string | null } | undefined> {
  const rows = await t.engram.db
    .knex<{ memory_id: string; kind: string; depth: number; source_run_id: string | null }>(
      'memory_provenance',
    )
    .where({ memory_id: memoryId })
    .select('kind', 'depth', 'source_run_id');
  return rows[0];
}

/** How many memories the store holds (all projects). */
export async function memoryCount(t: TestEngram): Promise<number> {
  const rows = await t.engram.db.knex('memories').count<{ n: string }[]>('* as n');
  return Number(rows[0]?.n ?? 0);
}
