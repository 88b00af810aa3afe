/**
 * The lines of an NDJSON body as they arrive, in constant memory: chunks are decoded as a UTF-8
 * stream (a character split across chunks is kept whole), a line split across chunks is joined,
 * a last line without a newline still counts, blank lines are skipped and "\r\n" is accepted.
 * Leaving the loop early cancels the body, which closes the connection.
 */
/** The body is not UTF-8 text. */
export class InvalidNdjsonError extends Error {
  override readonly name = 'InvalidNdjsonError';
}

export async function* ndjsonLines(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decode(decoder, value, true);
      let start = 0;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
        const line = trimLine(pending.slice(start, nl));
        start = nl + 1;
        if (line !== '') yield line;
      }
      pending = pending.slice(start);
    }
    pending += decode(decoder, undefined, false);
    finished = true;
    const last = trimLine(pending);
    if (last !== '') yield last;
  } finally {
    if (finished) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
  }
}

function decode(
  decoder: { decode(input?: Uint8Array, options?: { stream?: boolean }): string },
  chunk: Uint8Array | undefined,
  stream: boolean,
): string {
  try {
    return decoder.decode(chunk, { stream });
  } catch (err) {
    throw new InvalidNdjsonError('the stream is not valid UTF-8', { cause: err });
  }
}

function trimLine(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1).trim() : line.trim();
}
