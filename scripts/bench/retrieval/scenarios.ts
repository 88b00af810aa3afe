import { Agent, request } from 'node:http';
import type { ApiClient } from '@engram/testing';
import { memoryText, queryText } from './corpus.ts';
import { DIALOGUE, QUESTIONS } from './conversation.ts';
import { BENCH_NAMESPACE } from './bulk-load.ts';
import type { CpuMeter, CpuSnapshot } from './cpu.ts';
import { runLoad, type LoadResult } from './stats.ts';

export const BATCH_ITEMS = 20;

/**
 * The load generator's HTTP client: node:http with keep-alive sockets, not fetch. It shares the two
 * cores with the services, and undici's fetch costs it about twice the CPU per request.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs JSON; true when the answer is 200 (the body is read and discarded). */
export function ok(api: ApiClient, path: string, body: unknown): Promise<boolean> {
  const payload = JSON.stringify(body);
  const url = new URL(api.baseUrl + path);
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${api.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(payload);
  });
}

export interface WriteResults {
  readonly add1: LoadResult;
  readonly add32: LoadResult;
  readonly batch1: LoadResult;
  readonly batch32: LoadResult;
  /** CPU ms per write by process during add at 32 clients (with a meter). */
  readonly add32Cpu?: CpuSnapshot | undefined;
}

/** Runs a load, through the meter when there is one. */
async function metered(
  meter: CpuMeter | undefined,
  load: () => Promise<LoadResult>,
): Promise<[LoadResult, CpuSnapshot | undefined]> {
  if (!meter?.available) return [await load(), undefined];
  return meter.measure(load, (r) => r.count - r.errors);
}

/** Fresh content for every write of the run (the same text is never written twice). */
let writeSeq = 10_000_000;
function writeItem() {
  const i = writeSeq++;
  return { content: `${memoryText(i)} (write ${i})`, agent_id: `writer-${i % 32}`, namespace: 'writes' };
}

/** `total` adds from `clients` concurrent clients, with the CPU it cost each process when a meter is given. */
export function benchAdd(
  api: ApiClient,
  clients: number,
  total: number,
  meter?: CpuMeter,
): Promise<[LoadResult, CpuSnapshot | undefined]> {
  return metered(meter, () => runLoad(clients, total, () => ok(api, '/memories/add', writeItem())));
}

/** add and add_batch (20 items) through the gateway at 1 and 32 concurrent clients; fresh content each time. */
export async function benchWrites(api: ApiClient, scale = 1, meter?: CpuMeter): Promise<WriteResults> {
  const add = () => ok(api, '/memories/add', writeItem());
  const batch = () =>
    ok(api, '/memories/add_batch', { items: Array.from({ length: BATCH_ITEMS }, writeItem) });
  // Warm-up: connections, key cache, JIT.
  await runLoad(4, 50, add);
  const [add1] = await benchAdd(api, 1, 300 * scale);
  const [add32, add32Cpu] = await benchAdd(api, 32, 2000 * scale, meter);
  return {
    add1,
    add32,
    add32Cpu,
    batch1: await runLoad(1, 30 * scale, batch, BATCH_ITEMS),
    batch32: await runLoad(32, 150 * scale, batch, BATCH_ITEMS),
  };
}

export interface QueryResults {
  readonly query1: LoadResult;
  readonly query16: LoadResult;
  readonly hybrid1: LoadResult;
  readonly hybrid16: LoadResult;
  /** CPU ms per query by process during query at 16 clients (with a meter). */
  readonly query16Cpu?: CpuSnapshot | undefined;
}

/** query and hybrid_query (top_k 10, an internal agent key: visibility in the SQL) at 1 and 16 clients. */
export async function benchQueries(reader: ApiClient, size: number, meter?: CpuMeter): Promise<QueryResults> {
  const body = (i: number) => ({
    query: queryText((i * 7919) % size, i),
    namespace: BENCH_NAMESPACE,
    top_k: 10,
  });
  const q = (path: string) => (i: number) => ok(reader, path, body(i));
  await runLoad(4, 100, q('/memories/query'));
  await runLoad(4, 100, q('/memories/hybrid_query'));
  const query1 = await runLoad(1, 300, q('/memories/query'));
  const [query16, query16Cpu] = await metered(meter, () => runLoad(16, 2000, q('/memories/query')));
  return {
    query1,
    query16,
    query16Cpu,
    hybrid1: await runLoad(1, 300, q('/memories/hybrid_query')),
    hybrid16: await runLoad(16, 1000, q('/memories/hybrid_query')),
  };
}

export interface QualityResults {
  /** recall@k of the evidence, averaged over questions, per path and k. */
  readonly recall: Record<string, Record<number, number>>;
  readonly questions: number;
}

/** Writes the dialogue as episodic memories of one agent, then asks every question. */
export async function benchQuality(api: ApiClient): Promise<QualityResults> {
  const ids: string[] = [];
  for (const [i, turn] of DIALOGUE.entries()) {
    const res = await api.post<{ id: string }>('/memories/add', {
      content: turn,
      agent_id: 'assistant',
      namespace: 'conversation',
      memory_type: 'episodic',
      session_id: 'chat-1',
      sequence_number: i,
    });
    if (res.status !== 200) throw new Error(`quality set write failed: ${res.text}`);
    ids.push(res.body.id);
  }
  const recall: Record<string, Record<number, number>> = {};
  for (const path of ['/memories/query', '/memories/hybrid_query']) {
    recall[path] = {};
    for (const k of [1, 3, 5]) {
      let sum = 0;
      for (const q of QUESTIONS) {
        const res = await api.post<{ memories: { id: string }[] }>(path, {
          query: q.question,
          agent_id: 'assistant',
          namespace: 'conversation',
          top_k: k,
        });
        const got = new Set(res.body.memories.map((m) => m.id));
        sum += q.evidence.filter((e) => got.has(ids[e]!)).length / q.evidence.length;
      }
      recall[path][k] = sum / QUESTIONS.length;
    }
  }
  return { recall, questions: QUESTIONS.length };
}
