/**
 * `make bench-conversation`: recall of the evidence turns on Engram's conversational benchmark
 * (scripts/bench/retrieval/conversations, see its DATA-CARD.md). Every turn is stored as one memory
 * through the gateway (one namespace per conversation, the session date in metadata), then every
 * question is asked four ways, each with as_of = the question's asked_at (the reference time of
 * "last May" or "yesterday" in it):
 *   query          the vector channel (/memories/query)
 *   lexical        the lexical channel alone (Okapi BM25 on the write-time index, called directly)
 *   hybrid         /memories/hybrid_query (fusion with the constants frozen in HYBRID_FUSION)
 *   bm25 (plain)   the reference line: textbook Okapi BM25 over the same turns, in this script
 *                  (lowercased alphanumeric tokens, no stemming, no stop words, k1 1.2, b 0.75)
 * Options (environment):
 *   BENCH_PARTS=tuning        parts to run: tuning (default) or sealed; sealed is reported, never tuned on
 *   BENCH_EMBEDDER=hash       hash (default) or standin (the OpenAI-compatible stand-in, 384 dimensions)
 *   BENCH_ENGINE=pglite       pglite (default) or postgres
 *   BENCH_TUNE=1              also print recall@10 of offline fusions over a grid of k and weights,
 *                             and of the temporal list over a grid of its weight, slack and lexical
 *                             stripping (TEMPORAL_FUSION)
 * Prints a markdown report for docs/benchmarks.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { reciprocalRankFusion } from '@engram/ranking';
import { lexicalSearch } from '@engram/memories';
import {
  fuseInTime,
  HYBRID_FUSION,
  readTemporal,
  TEMPORAL_FUSION,
  type TemporalReading,
} from '@engram/retrieval-ranking';
import { EmbeddingStandIn } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const DIR = fileURLToPath(new URL('./retrieval/conversations/', import.meta.url));
const env = process.env;
const log = (s: string) => process.stdout.write(s + '\n');
const DEPTH = 50;

interface Conversation {
  conversation_id: string;
  sessions: {
    session_id: string;
    date: string;
    turns: { turn_id: string; speaker: string; text: string }[];
  }[];
}
interface Question {
  qid: string;
  conversation_id: string;
  question: string;
  evidence: string[];
  kind: string;
  asked_at: string;
}

/** The files of one part (the only place this script reads them; nothing prints their text). */
function loadPart(part: string): { conversations: Conversation[]; questions: Question[] } {
  const dir = DIR + part + '/';
  const conversations = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(dir + f, 'utf8')) as Conversation);
  const questions = readFileSync(dir + 'questions.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Question);
  return { conversations, questions };
}

/** Textbook Okapi BM25 (k1 1.2, b 0.75, Lucene IDF) over lowercased alphanumeric tokens. */
function plainBm25(docs: { id: string; text: string }[]): (query: string) => string[] {
  const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const tfs = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of tokens(d.text)) m.set(t, (m.get(t) ?? 0) + 1);
    return { id: d.id, m, len: [...m.values()].reduce((a, b) => a + b, 0) };
  });
  const df = new Map<string, number>();
  for (const d of tfs) for (const t of d.m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = tfs.length;
  const avgdl = tfs.reduce((a, d) => a + d.len, 0) / Math.max(n, 1);
  return (query) => {
    const terms = [...new Set(tokens(query))];
    return tfs
      .map((d) => {
        let s = 0;
        for (const t of terms) {
          const f = d.m.get(t);
          if (!f) continue;
          const dft = df.get(t)!;
          s +=
            Math.log(1 + (n - dft + 0.5) / (dft + 0.5)) *
            ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.len) / avgdl)));
        }
        return { id: d.id, s };
      })
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s)
      .slice(0, DEPTH)
      .map((x) => x.id);
  };
}

type Lists = Record<'query' | 'lexical' | 'hybrid' | 'bm25', string[]>;

/** Mean over questions of the share of evidence turns among the first k ids. */
function recall(rows: { evidence: string[]; ranked: string[] }[], k: number): number {
  if (rows.length === 0) return NaN;
  let sum = 0;
  for (const r of rows) {
    const top = new Set(r.ranked.slice(0, k));
    sum += r.evidence.filter((e) => top.has(e)).length / r.evidence.length;
  }
  return sum / rows.length;
}

async function runPart(t: TestEngram, part: string, dimensions: number) {
  const { conversations, questions } = loadPart(part);
  const turnOf = new Map<string, string>();
  const dateOfTurn = new Map<string, Date>();
  const docsByConv = new Map<string, { id: string; text: string }[]>();
  for (const c of conversations) {
    const docs: { id: string; text: string }[] = [];
    const items = c.sessions.flatMap((s) =>
      s.turns.map((turn, i) => ({
        content: `${turn.speaker}: ${turn.text}`,
        agent_id: 'assistant',
        namespace: c.conversation_id,
        memory_type: 'episodic',
        session_id: s.session_id,
        sequence_number: i,
        metadata: { session_date: s.date, turn_id: turn.turn_id },
      })),
    );
    for (let i = 0; i < items.length; i += 100) {
      const slice = items.slice(i, i + 100);
      const res = await t.admin.post<{ results: { id?: string }[] }>('/memories/add_batch', { items: slice });
      if (res.status !== 200) throw new Error(`write failed: ${res.text}`);
      res.body.results.forEach((r, j) => {
        if (!r.id) throw new Error(`write failed: ${JSON.stringify(r)}`);
        turnOf.set(r.id, slice[j]!.metadata.turn_id);
        dateOfTurn.set(slice[j]!.metadata.turn_id, new Date(slice[j]!.metadata.session_date));
        docs.push({ id: slice[j]!.metadata.turn_id, text: slice[j]!.content });
      });
    }
    docsByConv.set(c.conversation_id, docs);
  }
  const bm25 = new Map([...docsByConv].map(([c, d]) => [c, plainBm25(d)]));
  const knex = t.engram.db.knex;
  const turns = (ms: { id: string }[]) => ms.map((m) => turnOf.get(m.id)!);
  const rows: {
    q: Question;
    lists: Lists;
    reading: TemporalReading | undefined;
    lexicalRest: string[] | undefined;
  }[] = [];
  const lexical = async (namespace: string, text: string) =>
    turns(
      await lexicalSearch(
        knex,
        {
          reader: { projectId: 'default', agentId: 'assistant', seesAll: false },
          namespace,
          vector: Array.from({ length: dimensions }, (_, i) => (i === 0 ? 1 : 0)),
          text,
          memoryTypes: [],
          scopes: [],
          authors: [],
        },
        DEPTH,
      ),
    );
  for (const q of questions) {
    const body = {
      query: q.question,
      agent_id: 'assistant',
      namespace: q.conversation_id,
      as_of: q.asked_at,
    };
    const vec = await t.admin.post<{ memories: { id: string }[] }>('/memories/query', {
      ...body,
      top_k: DEPTH,
    });
    const hyb = await t.admin.post<{ memories: { id: string }[] }>('/memories/hybrid_query', {
      ...body,
      top_k: 10,
    });
    if (vec.status !== 200 || hyb.status !== 200) throw new Error(`query failed: ${vec.text} ${hyb.text}`);
    const reading = readTemporal(q.question, new Date(q.asked_at));
    rows.push({
      q,
      lists: {
        query: turns(vec.body.memories),
        lexical: await lexical(q.conversation_id, q.question),
        hybrid: turns(hyb.body.memories),
        bm25: bm25.get(q.conversation_id)!(q.question),
      },
      reading,
      // The lexical list without the words that dated the question, for the stripping grid.
      lexicalRest:
        reading && env.BENCH_TUNE === '1' ? await lexical(q.conversation_id, reading.rest) : undefined,
    });
  }
  return { turns: turnOf.size, rows, dateOfTurn };
}

type PartResult = Awaited<ReturnType<typeof runPart>>;

function table(r: PartResult): string[] {
  const kinds = [...new Set(r.rows.map((x) => x.q.kind))].sort();
  const out = [
    `| path | recall@5 | recall@10 | ${kinds.map((k) => `${k} @10`).join(' | ')} |`,
    `|---|---|---|${kinds.map(() => '---').join('|')}|`,
  ];
  const names: [keyof Lists, string][] = [
    ['query', 'query (vector)'],
    ['lexical', 'lexical alone (BM25, Engram analyzer)'],
    ['hybrid', 'hybrid_query'],
    ['bm25', 'plain BM25 (reference)'],
  ];
  for (const [key, name] of names) {
    const at = (rows: PartResult['rows'], k: number) =>
      recall(
        rows.map((x) => ({ evidence: x.q.evidence, ranked: x.lists[key] })),
        k,
      ).toFixed(3);
    out.push(
      `| ${name} | ${at(r.rows, 5)} | ${at(r.rows, 10)} | ${kinds
        .map((k) =>
          at(
            r.rows.filter((x) => x.q.kind === k),
            10,
          ),
        )
        .join(' | ')} |`,
    );
  }
  return out;
}

/** recall@10 of offline weighted RRF of the query and lexical lists over a grid (tuning only). */
function tune(r: PartResult): string[] {
  const out: string[] = [];
  for (const k of [1, 3, 5, 10, 20, 40, 60]) {
    const cells: string[] = [];
    for (const wLex of [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]) {
      const rows = r.rows.map((x) => ({
        evidence: x.q.evidence,
        ranked: reciprocalRankFusion([x.lists.query, x.lists.lexical], k, [1 - wLex, wLex]).map((f) => f.id),
      }));
      cells.push(`${wLex}: ${recall(rows, 10).toFixed(3)}`);
    }
    out.push(`k=${k}  ${cells.join('  ')}`);
  }
  return out;
}

/**
 * recall@10 of the frozen hybrid fusion plus the temporal list (fuseInTime), offline over the same
 * candidate lists, for a grid of its weight, slack and lexical stripping (tuning only): all
 * questions / temporal kind / questions that read dates.
 */
function tuneTime(r: PartResult): string[] {
  const dated = r.rows.filter((x) => x.reading).length;
  const out = [
    `temporal grid (${dated} of ${r.rows.length} questions read dates): weight: recall@10 all/temporal/dated`,
  ];
  const dateOf = (id: string) => r.dateOfTurn.get(id);
  for (const strip of [false, true]) {
    for (const slackDays of [0, 7, 14, 30]) {
      const cells: string[] = [];
      for (const weight of [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1]) {
        const ranked = r.rows.map((x) => ({
          evidence: x.q.evidence,
          kind: x.q.kind,
          dated: x.reading !== undefined,
          ranked: fuseInTime(
            [x.lists.query, strip && x.lexicalRest ? x.lexicalRest : x.lists.lexical],
            HYBRID_FUSION,
            x.reading?.intervals,
            dateOf,
            { weight, slackDays },
          ).fused.map((f) => f.id),
        }));
        const at10 = (rows: typeof ranked) => recall(rows, 10).toFixed(3);
        cells.push(
          `${weight}: ${at10(ranked)}/${at10(ranked.filter((x) => x.kind === 'temporal'))}/${at10(ranked.filter((x) => x.dated))}`,
        );
      }
      out.push(`strip ${strip ? 'yes' : 'no '} slack ${slackDays}  ${cells.join('  ')}`);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const parts = (env.BENCH_PARTS ?? 'tuning').split(',');
  const embedder = env.BENCH_EMBEDDER ?? 'hash';
  const engine = env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'pglite';
  const standin =
    embedder === 'standin' ? await EmbeddingStandIn.start({ defaultDimensions: 384 }) : undefined;
  const embEnv: Record<string, string> = standin
    ? {
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_BASE_URL: standin.baseUrl,
        EMBEDDING_MODEL: 'standin-384',
        EMBEDDING_DIMENSIONS: '384',
      }
    : { EMBEDDING_PROVIDER: 'hash' };
  try {
    for (const part of parts) {
      const t = await startTestEngram(engine, {
        RATE_LIMIT_PROJECT_PER_MINUTE: '100000000',
        RATE_LIMIT_AGENT_PER_MINUTE: '100000000',
        ...embEnv,
      });
      try {
        const t0 = process.cpuUsage();
        const r = await runPart(t, part, 384);
        const cpu = process.cpuUsage(t0);
        const lines = [
          `#### ${part} part, ${embedder} embedder, ${engine} (${r.turns} turns, ${r.rows.length} questions)`,
          '',
          ...table(r),
          '',
          `Fusion: k ${HYBRID_FUSION.k}, weights vector ${HYBRID_FUSION.weights[0]} / lexical ${HYBRID_FUSION.weights[1]}. ` +
            `Dates in questions (as_of = asked_at): ${r.rows.filter((x) => x.reading).length} of ${r.rows.length} questions read one; ` +
            `temporal list weight ${TEMPORAL_FUSION.weight}, slack ${TEMPORAL_FUSION.slackDays} days, ` +
            `dating words ${TEMPORAL_FUSION.stripFromLexical ? 'dropped from' : 'kept in'} the lexical query. ` +
            `CPU of the whole run (writes, questions) ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s; load average ${loadavg()[0]!.toFixed(1)}.`,
          '',
        ];
        for (const l of lines) log(l);
        if (env.BENCH_TUNE === '1' && part === 'tuning') for (const l of [...tune(r), ...tuneTime(r)]) log(l);
      } finally {
        await t.stop();
      }
    }
  } finally {
    await standin?.close();
  }
  log(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ${new Date().toISOString().slice(0, 10)}; ` +
      `command: \`BENCH_PARTS=${parts.join(',')} BENCH_EMBEDDER=${embedder} make bench-conversation\`.`,
  );
}

await main();
