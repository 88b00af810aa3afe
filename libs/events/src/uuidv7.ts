import { randomFillSync } from 'node:crypto';

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

let lastMs = -1;
let seq = 0;

/**
 * A UUID version 7 (RFC 9562): 48-bit Unix time in milliseconds, then random bits. Ids made by one
 * process are strictly increasing (a 12-bit counter in `rand_a` orders ids of the same millisecond;
 * when it runs out, the timestamp is advanced by one), so `order by event_id` matches creation order
 * within a process and is roughly time-ordered across processes.
 */
export function uuidv7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    seq = randomSeq();
  } else {
    seq += 1;
    if (seq > 0xfff) {
      lastMs += 1;
      seq = randomSeq();
    }
  }
  const b = new Uint8Array(16);
  randomFillSync(b, 8, 8);
  // 48-bit big-endian timestamp (2^48 ms is year 10889; Math arithmetic is exact below 2^53).
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (seq >> 8); // version 7 + high bits of the counter
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] ?? 0) & 0x3f); // variant 10
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += '-';
    out += HEX[b[i] ?? 0];
  }
  return out;
}

/** A random start in the lower half of the 12-bit counter, leaving room to count up. */
function randomSeq(): number {
  const r = new Uint8Array(2);
  randomFillSync(r);
  return (((r[0] ?? 0) << 8) | (r[1] ?? 0)) & 0x7ff;
}
