import type { ServerResponse } from 'node:http';
import { errorBody } from './error-writer.ts';
import type { GatewayError } from './gateway-error.ts';
import type { UpstreamStream } from './upstream.ts';

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

export interface NdjsonOptions {
  /** Turns one raw response message into one JSON line (without the newline). */
  readonly encode: (message: Buffer) => string;
  /** Maps a stream failure to the HTTP error. */
  readonly toError: (err: unknown) => GatewayError;
  /** Writes an error response while no row has been sent yet. */
  readonly writeError: (err: GatewayError) => void;
}

/**
 * Relays a server-streaming call as NDJSON, one object per line, in constant memory: when the
 * socket buffer is full the gRPC stream is paused (and flow control, HTTP/2's or the in-process
 * stream's, holds the upstream) until it drains. The status line waits for the first row, so a call that fails at once still
 * gets a proper error status; a failure after rows were sent ends the body with one last line
 * `{"error": {...}}`. A client that disconnects cancels the call.
 */
export function relayNdjson(call: UpstreamStream, res: ServerResponse, opts: NdjsonOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve();
    };
    const startBody = () => {
      if (res.headersSent) return;
      res.writeHead(200, { 'content-type': NDJSON_CONTENT_TYPE, 'cache-control': 'no-store' });
    };
    const fail = (err: GatewayError) => {
      if (res.destroyed) return finish();
      if (!res.headersSent) opts.writeError(err);
      else res.end(`${JSON.stringify(errorBody(err))}\n`);
      finish();
    };

    if (res.destroyed) {
      call.cancel();
      return finish();
    }
    res.on('close', () => {
      if (!res.writableFinished) call.cancel();
      finish();
    });
    call.on('data', (message: Buffer) => {
      if (settled) return;
      let line: string;
      try {
        line = opts.encode(message);
      } catch (err) {
        call.cancel();
        fail(opts.toError(err));
        return;
      }
      startBody();
      if (!res.write(`${line}\n`)) {
        call.pause();
        res.once('drain', () => call.resume());
      }
    });
    // grpc-js ends the stream and then emits 'error'; rows still buffered (the stream may be
    // paused) are relayed first, and the error follows them on 'end'.
    let pending: GatewayError | undefined;
    call.on('error', (err: unknown) => {
      if (settled) return;
      pending = opts.toError(err);
      if (call.readableLength === 0) fail(pending);
    });
    call.on('end', () => {
      if (settled) return;
      if (pending !== undefined) return fail(pending);
      startBody();
      res.end();
      finish();
    });
  });
}
