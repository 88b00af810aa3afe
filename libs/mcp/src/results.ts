import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngramError } from '@engram/client';

/** A successful tool answer: text for the model to read, the API's JSON for programs. */
export function toolResult(text: string, structured: object): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    structuredContent: structured as Record<string, unknown>,
  };
}

/**
 * A refused or failed call as an MCP tool error (isError: true), never a protocol error: the model
 * sees what went wrong and can fix its arguments or give up. The text leads with the machine-readable
 * reason and names every invalid field and every content-security finding (category, type, action;
 * never the matched text, which the API does not return either); structuredContent carries the
 * same as JSON.
 */
export function engramToolError(err: EngramError): CallToolResult {
  const lines = [`${err.reason} (${err.status === 0 ? err.code : `HTTP ${err.status}`}): ${err.message}`];
  for (const v of err.fieldViolations) lines.push(`- field ${v.field || '(body)'}: ${v.description}`);
  for (const d of err.detections) {
    lines.push(`- detection: ${String(d.category)}:${String(d.type)} -> ${String(d.action)}`);
  }
  if (err.retryAfterSeconds !== undefined) lines.push(`Retry after ${err.retryAfterSeconds} s.`);
  const hint = HINTS[err.reason];
  if (hint !== undefined) lines.push(hint);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      error: {
        code: err.code,
        status: err.status,
        reason: err.reason,
        message: err.message,
        field_violations: err.fieldViolations.map((v) => ({ ...v })),
        detections: err.detections.map((d) => ({ ...d })),
        ...(err.retryAfterSeconds !== undefined ? { retry_after_seconds: err.retryAfterSeconds } : {}),
        ...(err.requestId !== undefined ? { request_id: err.requestId } : {}),
      },
    },
  };
}

/** What an agent can do about the refusals it is most likely to meet. */
const HINTS: Readonly<Record<string, string>> = {
  AGENT_MISMATCH:
    'This API key is bound to one agent: leave the agent field out (it defaults to that agent) or name that agent.',
  SECURITY_REJECTED:
    'The content-security policy refused the content: remove secrets, credentials or injected instructions and try again.',
  UNAUTHENTICATED: 'The API key is missing, invalid, expired or revoked.',
  NOT_FOUND: 'No such item, or it is not visible to this agent.',
};

/**
 * Runs one tool call: an EngramError (the API refused, or could not be reached) becomes a tool
 * error; anything else propagates, and the MCP SDK turns it into a tool error with its message.
 */
export async function callTool(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof EngramError) return engramToolError(err);
    throw err;
  }
}
