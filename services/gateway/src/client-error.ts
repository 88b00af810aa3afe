import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './error-writer.ts';
import { GatewayError } from './gateway-error.ts';

/**
 * Answers requests Node's HTTP parser rejects (malformed request line or headers, headers too
 * large, request timeout) with the same JSON error body as every other error, instead of Node's
 * bare "400 Bad Request".
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A response already under way on this socket cannot be replaced (Node's own handler checks the same).
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
    socket.destroy();
    return;
  }
  const status =
    err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(
    errorBody(new GatewayError(status, 'INVALID_ARGUMENT', 'MALFORMED_REQUEST', 'malformed HTTP request')),
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
