/**
 * engram memories import <file | ->: NDJSON export rows (engram memories export, POST /memories/export)
 * into the key's project through ImportMemories, in batches of at most 100 (the RPC's limit). Each row
 * is screened and signed anew and gets a new id; deprecated rows and rows whose signature failed at
 * the source are refused, each on its own. Resumable: the summary names the last source id whose
 * outcome is known, and --after <that id> skips every row up to and including it. A row imported
 * twice (a resumed batch that had in fact gone through) comes back "already present", not twice.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { expectPositionals, HELP, intOption, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection, type Connection } from '../../connection.ts';
import { EXIT, fail, messageOf } from '../../exit.ts';
import { startProgress, type Progress } from '../../progress.ts';
import { countLines, parseRow, RowError, sourceIdOf } from './import-rows.ts';
import { IngestServiceClient } from '@engram/proto/engram/ingest/v1/ingest';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';

/** ImportMemories takes at most this many rows per request. */
const MAX_BATCH = 100;
const BATCH_TIMEOUT_MS = 120_000;

export const USAGE = `usage: engram memories import <file | -> [--batch-size N] [--after SOURCE_ID] [--agent A] [--namespace N] [--json]
  Imports NDJSON export rows (\`engram memories export\`) into the key's project, in batches: each row
  is screened and signed anew under a new id. Rows that fail are reported one a line on stderr and
  the rest go on; the summary says read / imported / already present / failed / skipped and the last
  source id whose outcome is known. Shows a progress bar on a terminal.
options:
  --batch-size N      rows per request (1 to ${MAX_BATCH}, default ${MAX_BATCH})
  --after SOURCE_ID   skip every row up to and including the one with this id (resume an import)
  --agent A           import every row as agent A (default: each row's agent_id)
  --namespace N       import every row into namespace N (default: each row's namespace)
  --json              the summary (and every failure) as one JSON object
Ctrl-C stops after the batch in flight and prints where to resume (exit status 130).
Exit status 1 when a row failed.
${CONNECTION_USAGE}`;

interface Failure {
  readonly line: number;
  readonly source_id: string;
  readonly reason: string;
  readonly message: string;
}

interface Summary {
  /** Rows whose outcome is known (skipped ones included); blank lines are not rows. */
  read: number;
  imported: number;
  already_present: number;
  failed: number;
  skipped: number;
  /** The id of the last row whose outcome is known: what --after takes to resume. */
  last_source_id: string | null;
  interrupted: boolean;
  failures: Failure[];
}

/** A row waiting for its batch: parsed, or already failed here (kept in order for last_source_id). */
interface Pending {
  readonly line: number;
  readonly sourceId: string;
  readonly memory?: Memory;
  readonly error?: string;
}

interface Options {
  readonly batchSize: number;
  readonly after: string | undefined;
  readonly agent: string | undefined;
  readonly namespace: string | undefined;
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...JSON_OPTION,
      ...HELP,
      'batch-size': { type: 'string' },
      after: { type: 'string' },
      agent: { type: 'string' },
      namespace: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  const opts: Options = {
    batchSize: intOption(values['batch-size'], 'batch-size', MAX_BATCH, 1, MAX_BATCH, USAGE),
    after: values.after,
    agent: values.agent,
    namespace: values.namespace,
  };
  const source = positionals[0]!;
  let total: number | undefined;
  let input: Readable;
  if (source === '-') {
    input = process.stdin;
  } else {
    let isFile: boolean;
    try {
      isFile = statSync(source).isFile();
    } catch (err) {
      return fail(`cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
    }
    // A regular file is counted first, for a bar with a total; a FIFO or device gets a counter.
    if (isFile) total = await countLines(source);
    input = createReadStream(source);
  }
  await withConnection(values, USAGE, async (conn) => {
    const progress = startProgress({ label: 'import', total, unit: 'lines' });
    const summary: Summary = {
      read: 0,
      imported: 0,
      already_present: 0,
      failed: 0,
      skipped: 0,
      last_source_id: opts.after ?? null,
      interrupted: false,
      failures: [],
    };
    const report = () => {
      progress.stop();
      printSummary(summary, values.json === true, opts.after);
    };
    // First Ctrl-C: finish the batch in flight, then stop with a summary. Second: stop at once.
    const onSigint = () => {
      if (summary.interrupted) {
        report();
        process.exit(EXIT.interrupted);
      }
      summary.interrupted = true;
      progress.log('import: interrupted; finishing the batch in flight (Ctrl-C again to stop at once)');
    };
    process.on('SIGINT', onSigint);
    let afterFound = opts.after === undefined;
    try {
      afterFound = await importLines(conn, input, opts, summary, progress);
    } catch (err) {
      report();
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      input.destroy();
    }
    if (total !== undefined && !summary.interrupted) progress.update(total, detail(summary));
    report();
    if (!afterFound && !summary.interrupted)
      fail(`no row has the id ${opts.after} given to --after: nothing was imported`, EXIT.failed);
    if (summary.interrupted) process.exitCode = EXIT.interrupted;
    else if (summary.failed > 0) process.exitCode = EXIT.failed;
  });
}

async function importLines(
  conn: Connection,
  input: Readable,
  opts: Options,
  summary: Summary,
  progress: Progress,
): Promise<boolean> {
  const client = conn.client(IngestServiceClient);
  let seeking = opts.after !== undefined;
  let lineNo = 0;
  let batch: Pending[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    const sent = rows.filter((r) => r.memory !== undefined);
    const results =
      sent.length === 0
        ? []
        : (
            await conn.unary(
              client.importMemories.bind(client),
              { memories: sent.map((r) => r.memory!) },
              BATCH_TIMEOUT_MS,
            )
          ).results;
    const outcome = new Map(results.map((r) => [sent[r.index], r]));
    for (const row of rows) {
      summary.read += 1;
      const r = outcome.get(row);
      if (row.error !== undefined) recordFailure(row, 'INVALID_ROW', row.error);
      else if (!r) recordFailure(row, 'NO_RESULT', 'Engram returned no result for this row');
      else if (r.error) {
        const refused = conn.errorOf(r.error);
        recordFailure(row, refused.reason || refused.code, refused.message);
      } else if (r.deduplicated) summary.already_present += 1;
      else summary.imported += 1;
      if (row.sourceId !== '') summary.last_source_id = row.sourceId;
    }
    progress.update(rows[rows.length - 1]!.line, detail(summary));
  };

  const recordFailure = (row: Pending, reason: string, message: string) => {
    summary.failed += 1;
    summary.failures.push({ line: row.line, source_id: row.sourceId, reason, message });
    const id = row.sourceId === '' ? '' : ` (source id ${row.sourceId})`;
    progress.log(`import: line ${row.line}${id}: ${reason}: ${message}`);
  };

  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const text of lines) {
    if (summary.interrupted) break;
    lineNo += 1;
    if (text.trim() === '') continue;
    if (seeking) {
      summary.read += 1;
      summary.skipped += 1;
      if (sourceIdOf(text) === opts.after) seeking = false;
      progress.update(lineNo, detail(summary));
      continue;
    }
    batch.push(pendingRow(text, lineNo, opts));
    if (batch.length >= opts.batchSize) await flush();
  }
  // Interrupted: rows read but never sent are not in the summary; the resume point precedes them.
  if (!summary.interrupted) await flush();
  lines.close();
  return !seeking;
}

function pendingRow(text: string, line: number, opts: Options): Pending {
  try {
    const memory = parseRow(text);
    if (opts.agent !== undefined) memory.agent_id = opts.agent;
    if (opts.namespace !== undefined) memory.namespace = opts.namespace;
    return { line, sourceId: memory.id, memory };
  } catch (err) {
    if (!(err instanceof RowError)) throw err;
    return { line, sourceId: sourceIdOf(text), error: err.message };
  }
}

function detail(s: Summary): string {
  return `imported ${s.imported + s.already_present}, failed ${s.failed}`;
}

function printSummary(s: Summary, json: boolean, after: string | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(s) + '\n');
    return;
  }
  const lines = [
    `import: read ${s.read}, imported ${s.imported}, already present ${s.already_present}, failed ${s.failed}, skipped ${s.skipped}`,
  ];
  if (s.last_source_id !== null && s.last_source_id !== after) {
    lines.push(
      s.interrupted
        ? `interrupted: to resume, run the same command with --after ${s.last_source_id}`
        : `last source id: ${s.last_source_id} (resume: --after ${s.last_source_id})`,
    );
  } else if (s.interrupted) {
    lines.push('interrupted before any row was imported: run the same command again');
  }
  process.stdout.write(lines.join('\n') + '\n');
}
