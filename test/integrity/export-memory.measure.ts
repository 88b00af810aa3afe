import { startTestEngram } from '@engram/all-in-one/testing';
/**
 * Measures the heap of POST /memories/export on 10,000 and 100,000 rows (not a test: run it with
 * `node --expose-gc --import tsx test/integrity/export-memory.measure.ts`). The whole suite runs in
 * this process (PostgreSQL), the client counts lines as they arrive; the peak heap must not grow with
 * the number of rows, because the export reads pages of 500 by id and the gateway relays with
 * backpressure.
 */

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

async function exportPeak(baseUrl: string, key: string, namespace: string) {
  gc();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  let lines = 0;
  const res = await fetch(`${baseUrl}/memories/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ namespace }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const ch of decoder.decode(chunk, { stream: true })) if (ch === '\n') lines++;
    if (lines % 2000 < 50) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  return { lines, startMb: mb(start), peakMb: mb(peak) };
}

const t = await startTestEngram('postgres');
try {
  const knex = t.engram.db.knex;
  for (const [ns, n] of [
    ['m10k', 10_000],
    ['m100k', 100_000],
  ] as const) {
    await knex.raw(
      `insert into memories (id, project_id, namespace, agent_id, content, content_key, memory_type, scope, trust_level)
       select gen_random_uuid(), 'default', ?, 'bulk', repeat('x', 400) || g, ? || g, 'standard', 'global', 'internal'
       from generate_series(1, ?) g`,
      [ns, ns, n],
    );
  }
  for (const ns of ['m10k', 'm100k', 'm10k', 'm100k']) {
    const r = await exportPeak(t.baseUrl, t.adminKey, ns);
    process.stdout.write(`${ns}: ${r.lines} rows, heap before ${r.startMb} MB, peak ${r.peakMb} MB\n`);
  }
} finally {
  await t.stop();
}
