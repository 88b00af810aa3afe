export { createEngramMcpServer, engramClientForMcp, MCP_CHANNEL_HEADER, TOOL_NAMES } from './server.ts';
export type { EngramMcpServerOptions } from './server.ts';
