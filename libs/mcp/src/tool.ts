import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { EngramClient } from '@engram/client';
import { callTool } from './results.ts';

/** One tool, defined once per process and registered on each server (one server per HTTP request). */
export interface EngramTool {
  readonly name: string;
  register(server: McpServer, engram: EngramClient): void;
}

export interface ToolConfig<S extends ZodRawShapeCompat> {
  readonly title: string;
  /** Written for the model: what the tool is for, when to use it, what it refuses. */
  readonly description: string;
  readonly inputSchema: S;
  readonly annotations: ToolAnnotations;
}

/**
 * A tool whose schema is built once (zod schemas cost more to build than a request to serve) and
 * whose run gets the server's EngramClient and the call's abort signal. Refusals of the API become
 * tool errors (callTool).
 */
export function defineTool<S extends ZodRawShapeCompat>(
  name: string,
  config: ToolConfig<S>,
  run: (engram: EngramClient, args: ShapeOutput<S>, signal: AbortSignal) => Promise<CallToolResult>,
): EngramTool {
  return {
    name,
    register(server, engram) {
      const handler = (args: ShapeOutput<S>, extra: { signal: AbortSignal }) =>
        callTool(() => run(engram, args, extra.signal));
      // The SDK types the callback by a conditional type on S, which TypeScript cannot resolve for a
      // generic S; for a raw shape it is exactly this signature.
      server.registerTool(name, config, handler as unknown as ToolCallback<S>);
    },
  };
}
