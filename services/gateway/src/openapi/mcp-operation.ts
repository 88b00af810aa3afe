import { errorResponseRef } from './error-schema.ts';
import type { Schema } from './json-schema.ts';
import { SECURITY_SCHEME } from './operations.ts';

/** The tag of the MCP endpoint. */
export const MCP_TAG = 'mcp';

const JSON_RPC_ID: Schema = { oneOf: [{ type: 'string' }, { type: 'integer' }] };

const JSON_RPC_MESSAGE: Schema = {
  type: 'object',
  description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol.',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: JSON_RPC_ID,
    method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
    params: { type: 'object' },
  },
};

const JSON_RPC_ERROR_OBJECT: Schema = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
};

const JSON_RPC_ANSWER: Schema = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: JSON_RPC_ID,
    result: { type: 'object', description: 'A tool call that Engram refused has result.isError true.' },
    error: JSON_RPC_ERROR_OBJECT,
  },
};

const JSON_RPC_ERROR: Schema = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    error: JSON_RPC_ERROR_OBJECT,
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
  },
};

const jsonRpcError = (description: string): Schema => ({
  description,
  content: { 'application/json': { schema: JSON_RPC_ERROR } },
});

/**
 * POST /mcp (mcp-endpoint.ts): MCP over Streamable HTTP in stateless mode. The HTTP-level refusals
 * before the protocol starts (no key, body too large) have the Error body; what the protocol
 * refuses has a JSON-RPC error body, as MCP clients expect.
 */
export function mcpOperation(): Schema {
  return {
    operationId: 'Mcp',
    tags: [MCP_TAG],
    summary: 'Model Context Protocol (Streamable HTTP, stateless): Engram’s memory tools for agents',
    description:
      'One JSON-RPC message (or a batch) per POST; no session (no Mcp-Session-Id), so any replica ' +
      'serves any request. Send `Accept: application/json, text/event-stream`. The answer is JSON, ' +
      'never an event stream. Each tool call is a request to this REST API with the same key, so its ' +
      'trust, bound agent, scope rules and rate limits apply; writes are screened and signed, with ' +
      'provenance channel `mcp`. GET and DELETE answer 405.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { oneOf: [JSON_RPC_MESSAGE, { type: 'array', items: JSON_RPC_MESSAGE, minItems: 1 }] },
        },
      },
    },
    responses: {
      '200': {
        description: 'The JSON-RPC answer (an array for a batch).',
        content: {
          'application/json': {
            schema: { oneOf: [JSON_RPC_ANSWER, { type: 'array', items: JSON_RPC_ANSWER }] },
          },
        },
      },
      '202': { description: 'Accepted: the body held only notifications or responses.' },
      '400': jsonRpcError('The body is not JSON, or not a JSON-RPC message (code -32700 or -32600).'),
      '401': errorResponseRef('401'),
      '406': jsonRpcError('Accept does not list both application/json and text/event-stream.'),
      '413': errorResponseRef('413'),
      '415': jsonRpcError('Content-Type is not application/json.'),
      default: errorResponseRef('default'),
    },
    security: [{ [SECURITY_SCHEME]: [] }],
  };
}
