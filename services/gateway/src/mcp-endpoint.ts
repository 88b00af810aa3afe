import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@engram/logger';
import { EngramError, type EngramClient } from '@engram/client';
import { createEngramMcpServer, engramClientForMcp } from '@engram/mcp';
import { readBody } from './body-reader.ts';
import {
  ERROR_INFO_TYPE,
  GATEWAY_ERROR_DOMAIN,
  GatewayError,
  methodNotAllowed,
  type JsonObject,
} from './gateway-error.ts';

/** Where the gateway serves MCP over Streamable HTTP. */
export const MCP_PATH = '/mcp';

export interface McpEndpointDeps {
  /** The REST routes' body limit: an MCP request is held to the same. */
  readonly maxBodyBytes: number;
  /** This gateway's own base URL, reachable from inside the process (see selfUrl). */
  readonly baseUrl: () => string;
  readonly logger: Logger;
}

/** `authorization: Bearer <key>`: the key, else undefined. */
function bearerKey(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
}

function unauthenticated(): GatewayError {
  return new GatewayError(401, 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'a bearer API key is required', {
    details: [
      { '@type': ERROR_INFO_TYPE, reason: 'UNAUTHENTICATED', domain: GATEWAY_ERROR_DOMAIN, metadata: {} },
    ],
    headers: { 'www-authenticate': 'Bearer' },
  });
}

/**
 * Checks the key before anything is served (GET /auth/whoami): a key the API refuses is the 401 of
 * the gateway's error body for every MCP message, initialize and tools/list included, not a tool
 * error on the first tool call. Any other refusal (503, 429) is passed on as the API answered it.
 */
async function authenticate(engram: EngramClient): Promise<void> {
  try {
    await engram.getCaller();
  } catch (err) {
    if (!(err instanceof EngramError)) throw err;
    if (err.status === 401) throw unauthenticated();
    const retryAfter = err.retryAfterSeconds;
    throw new GatewayError(
      err.status === 0 ? 503 : err.status,
      err.status === 0 ? 'UNAVAILABLE' : err.code,
      err.status === 0 ? 'DEPENDENCY_UNAVAILABLE' : err.reason,
      err.status === 0 ? 'the API could not be reached' : err.message,
      {
        // Parsed from the API's JSON error body, so JSON values throughout.
        details: err.details as readonly JsonObject[],
        ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
      },
    );
  }
}

/** A JSON-RPC error answer, as the MCP SDK's transport writes its own (here: a body that is not JSON). */
function writeJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const payload = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * POST /mcp: MCP over Streamable HTTP, stateless. Each POST gets a new McpServer and transport (no
 * session id), so any replica can serve any request and nothing is kept between requests. The
 * request's bearer key is required and checked first (GET /auth/whoami; 401 in the gateway's error
 * body), and is the key of the per-request EngramClient every tool calls, so each tool call is one
 * REST request of this gateway with the caller's key: authentication, trust, bound-agent and scope
 * rules, rate limits, screening and signing are the REST API's own, and the channel header makes
 * provenance say `mcp`. A key revoked between the check and a tool call is that tool call's error.
 * GET (a server-initiated event stream) and DELETE (end a session) have nothing to serve without
 * sessions: 405 with Allow: POST, which the protocol provides for.
 */
export function mcpEndpoint(deps: McpEndpointDeps) {
  const log = deps.logger.child({ component: 'mcp' });
  return async (req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> => {
    if (req.method !== 'POST') throw methodNotAllowed(['POST']);
    const apiKey = bearerKey(req.headers.authorization);
    if (apiKey === undefined) throw unauthenticated();
    const engram = engramClientForMcp({
      baseUrl: deps.baseUrl(),
      apiKey,
      // The caller decides about retries (it sees Retry-After in the tool error); the gateway
      // never retries on its behalf, as it does not for REST requests either.
      retry: false,
      // The tool calls' REST requests log the request id of the MCP request they serve.
      headers: { 'x-request-id': requestId },
    });
    await authenticate(engram);
    const body = await readBody(req, deps.maxBodyBytes);
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return writeJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    }
    const server = createEngramMcpServer(engram);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = (err) => log.debug({ request_id: requestId, err: err.message }, 'mcp transport');
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };
}

/**
 * The base URL of the gateway's own listening address: loopback for a wildcard address (0.0.0.0,
 * ::), the address itself otherwise. Tool calls reach the REST routes through it.
 */
export function selfUrl(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error('the gateway is not listening on TCP');
  const host =
    address.address === '0.0.0.0' || address.address === ''
      ? '127.0.0.1'
      : address.address === '::'
        ? '[::1]'
        : address.family === 'IPv6' || address.address.includes(':')
          ? `[${address.address}]`
          : address.address;
  return `http://${host}:${address.port}`;
}
