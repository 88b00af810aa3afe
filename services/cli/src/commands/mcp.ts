/**
 * engram mcp: Engram's MCP tools over stdio, for an MCP client (an agent runtime, an IDE) that starts
 * the server as a child process. stdin and stdout carry the protocol, so nothing else is ever written
 * to stdout: the one status line, and any failure, go to stderr. Each tool call is one request to the
 * REST gateway with the given key, labelled channel `mcp`.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createEngramMcpServer, engramClientForMcp, TOOL_NAMES } from '@engram/mcp';
import { HELP, parseCommand } from '../args.ts';
import { usageError } from '../exit.ts';

export const DEFAULT_ENGRAM_URL = 'http://127.0.0.1:8080';

export const USAGE = `usage: engram mcp [--url URL] [--key KEY]

Serves Engram's MCP tools over stdio until stdin closes: stdin and stdout carry the protocol,
messages go to stderr. Every tool call is a request to the REST gateway with the key, so the key's
trust and bound agent apply. Tools:
  ${TOOL_NAMES.join(', ')}

options:
  --url URL   the REST gateway (ENGRAM_URL; default ${DEFAULT_ENGRAM_URL})
  --key KEY   API key (ENGRAM_API_KEY, else SERVICE_API_KEY)

An MCP client configuration (README.md, "MCP"):
  {"mcpServers": {"engram": {"command": "engram", "args": ["mcp"],
    "env": {"ENGRAM_URL": "${DEFAULT_ENGRAM_URL}", "ENGRAM_API_KEY": "<key>"}}}}`;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    options: { ...HELP, url: { type: 'string' }, key: { type: 'string' } },
    allowPositionals: false,
  });
  if (!parsed) return;
  const apiKey = parsed.values.key ?? process.env.ENGRAM_API_KEY ?? process.env.SERVICE_API_KEY;
  if (!apiKey) usageError('an API key is required: set ENGRAM_API_KEY or pass --key', USAGE);
  const baseUrl = parsed.values.url ?? process.env.ENGRAM_URL ?? DEFAULT_ENGRAM_URL;
  let engram;
  try {
    engram = engramClientForMcp({ baseUrl, apiKey });
  } catch (err) {
    return usageError(`--url / ENGRAM_URL: ${err instanceof Error ? err.message : String(err)}`, USAGE);
  }
  const server = createEngramMcpServer(engram);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  // The client ends the session by closing our stdin; the transport does not notice by itself.
  process.stdin.once('end', () => void server.close());
  await server.connect(transport);
  process.stderr.write(`engram mcp: serving ${TOOL_NAMES.length} tools over stdio for ${engram.baseUrl}\n`);
  await closed;
}
