/**
 * Helpers of the MCP tests: the MCP SDK's own client, and what the tests read back from the store
 * (provenance, audit events) to check what a tool call left behind.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestEngram } from '@engram/all-in-one/testing';

/** A key made through /admin/keys: the raw key and its id (what provenance records). */
export interface TestKey {
  readonly key: string;
  readonly keyId: string;
}

export async function createKey(
  t: TestEngram,
  opts: { trust_level: string; bound_agent_id?: string },
): Promise<TestKey> {
  const res = await t.admin.post<{ api_key: string; key_id: string }>('/admin/keys', {
    name: 'mcp',
    ...opts,
  });
  assert.equal(res.status, 200, res.text);
  return { key: res.body.api_key, keyId: res.body.key_id };
}

/** tools/call, typed as the plain (non-task) result the tools give. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful tool call: its structuredContent (fails the test on a tool error, showing its text). */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ structured: T; text: string }> {
  const r = await call(client, name, args);
  const text = textOf(r);
  assert.notEqual(r.isError, true, `${name} failed: ${text}`);
  assert.ok(r.structuredContent, `${name} returned no structuredContent`);
  return { structured: r.structuredContent as T, text };
}

/** A tool error: its structured error (fails the test when the call succeeded). */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ error: ToolError; text: string }> {
  const r = await call(client, name, args);
  const text = textOf(r);
  assert.equal(r.isError, true, `${name} should have failed: ${text}`);
  return { error: (r.structuredContent as { error: ToolError } | undefined)?.error as ToolError, text };
}

export interface ToolError {
  readonly code: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  readonly field_violations: { field: string; description: string }[];
  readonly detections: { category: string; type: string; action: string }[];
}

export function textOf(r: CallToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export async function provenanceOf(t: TestEngram, memoryId: string): Promise<Record<string, unknown>> {
  const row: Record<string, unknown> | undefined = await t.engram.db
    .knex('memory_provenance')
    .where({ memory_id: memoryId })
    .first();
  assert.ok(row, `no provenance for ${memoryId}`);
  return row;
}

export async function memoriesWithContent(t: TestEngram, content: string): Promise<unknown[]> {
  return t.engram.db.knex('memories').where({ content });
}

export async function auditDetails(
  t: TestEngram,
  eventType: string,
  agentId: string,
): Promise<Record<string, unknown>[]> {
  const rows: { details: unknown }[] = await t.engram.db
    .knex('audit_events')
    .where({ event_type: eventType, agent_id: agentId });
  return rows.map(
    (r) => (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
  );
}

/** An AWS access key id shape, built at run time so that no secret-looking literal sits in the repository. */
export const AWS_KEY_ID = ['AK', 'IA', 'Q3EGZ7NAXW2RT5JY'].join('');
