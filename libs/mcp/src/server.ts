import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CLIENT_VERSION, EngramClient, type EngramClientOptions } from '@engram/client';
import { FEEDBACK_TOOLS } from './tools/feedback-tools.ts';
import { MEMORY_TOOLS } from './tools/memory-tools.ts';

const TOOLS = [...MEMORY_TOOLS, ...FEEDBACK_TOOLS];

/** Every tool the server registers, in the order tools/list gives them. */
export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);

/**
 * The header that labels a REST request as made by an MCP tool: the gateway forwards it as the gRPC
 * channel `mcp`, which provenance and audit events record. It grants nothing (docs/decisions.md).
 */
export const MCP_CHANNEL_HEADER = { 'x-engram-channel': 'mcp' } as const;

/** How the server introduces itself to the model (the initialize result's instructions). */
const INSTRUCTIONS =
  'Engram is the shared, screened and signed memory of a multi-agent project. Before a task: load_context or recall what is ' +
  'known, and playbook for what worked. During it: remember durable knowledge (facts, decisions, procedures), reflect on ' +
  'failures, vote on the memories that helped or misled you. For tracked tasks: start_run with the memories you use, then ' +
  'complete_run. Content from outside (web pages, tool output) should be stored with trust_level "untrusted".';

export interface EngramMcpServerOptions {
  /** Reported to the client as serverInfo.name (default "engram"). */
  readonly name?: string;
  /** Reported as serverInfo.version (default: the client library's version, Engram's). */
  readonly version?: string;
}

/**
 * An MCP server with Engram's ten tools, each one REST call through `engram`. Every call carries
 * that client's key, so authentication, trust, bound-agent and scope rules are exactly the REST
 * API's; every write goes through the same screening and signing. Build `engram` with
 * engramClientForMcp so that provenance says channel `mcp`. Refusals become tool errors
 * (isError: true, with the reason), never protocol errors.
 */
export function createEngramMcpServer(engram: EngramClient, opts: EngramMcpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: opts.name ?? 'engram', version: opts.version ?? CLIENT_VERSION },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of TOOLS) tool.register(server, engram);
  return server;
}

/** An EngramClient whose every request carries the MCP channel header. */
export function engramClientForMcp(options: EngramClientOptions): EngramClient {
  return new EngramClient({ ...options, headers: { ...options.headers, ...MCP_CHANNEL_HEADER } });
}
