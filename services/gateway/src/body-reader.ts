import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from './gateway-error.ts';

/** The request body limit: 8 MiB (docs/decisions.md). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** How much of an oversized body is read and thrown away (so the client sees the 413) before the
 * connection is cut. */
const DISCARD_FACTOR = 4;

/** The client went away before its request body arrived; there is nobody to answer. */
export class ClientAbortedError extends Error {
  override readonly name = 'ClientAbortedError';
  constructor() {
    super('client closed the connection while sending the request');
  }
}

/** application/json, with parameters, or a +json subtype. An absent content-type counts as JSON. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const media = (header.split(';')[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(media);
}

/** True when the request announces a body (content-length > 0 or chunked transfer). */
export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return len !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads the whole body, at most `limit` bytes. Over the limit it rejects with a 413 GatewayError at
 * once (from content-length when announced) and keeps reading and discarding, so the client can
 * finish sending and read the answer; a body far over the limit gets the connection cut.
 */
export function readBody(req: IncomingMessage, limit: number = DEFAULT_MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let overflow = false;
    const tooLarge = () => {
      overflow = true;
      chunks.length = 0;
      reject(payloadTooLarge(limit));
    };
    const announced = Number(req.headers['content-length']);
    if (Number.isFinite(announced) && announced > limit) tooLarge();
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (overflow) {
        if (total > limit * DISCARD_FACTOR) req.destroy();
        return;
      }
      if (total > limit) tooLarge();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (!overflow) resolve(Buffer.concat(chunks, total));
    });
    // A promise settles once: after 'end' these are no-ops.
    req.on('close', () => {
      if (!req.complete) reject(new ClientAbortedError());
    });
    req.on('error', () => reject(new ClientAbortedError()));
  });
}
