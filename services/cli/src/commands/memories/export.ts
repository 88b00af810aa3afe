/**
 * engram memories export: every memory the caller may read, as NDJSON (one export row a line, exactly
 * the rows of POST /memories/export, integrity_status included), streamed from ExportMemories in
 * constant memory. `engram memories import` reads the file back.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, openSync, renameSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { expectPositionals, HELP, listOption, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { fail, messageOf } from '../../exit.ts';
import { startProgress } from '../../progress.ts';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import { MemoryStoreServiceClient } from '@engram/proto/engram/memory/v1/memory_store';

export const USAGE = `usage: engram memories export [--agent A] [--namespace N] [--types T,U] [--include-deprecated] [-o FILE]
  Writes every memory the key may read as NDJSON, one export row a line, to stdout or FILE. A FILE
  is written as FILE.partial and renamed when the export is complete, so a FILE is never cut short.
options:
  --agent A              read as this agent (a bound key: its own agent, the default)
  --namespace N          only this namespace
  --types T,U            only these memory types
  --include-deprecated   deprecated memories too (import refuses them)
  -o, --output FILE      write to FILE instead of stdout
${CONNECTION_USAGE}`;

interface Sink {
  readonly out: Writable;
  /** Makes the output final (the rename of FILE.partial). */
  finish(): Promise<void>;
  /** Where the rows are: stdout, FILE, or FILE.partial while the export runs. */
  readonly name: string;
  readonly partial: string;
}

/**
 * stdout, or FILE through FILE.partial (a FIFO or device is written in place). The file is opened
 * here, so a FILE that cannot be written is an error before anything is asked of Engram.
 */
function sinkOf(file: string | undefined): Sink {
  if (file === undefined || file === '-') {
    return { out: process.stdout, finish: () => Promise.resolve(), name: 'stdout', partial: 'stdout' };
  }
  const inPlace = existsSync(file) && !statSync(file).isFile();
  const target = inPlace ? file : `${file}.partial`;
  let fd: number;
  try {
    fd = openSync(target, 'w');
  } catch (err) {
    return fail(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`);
  }
  const out = createWriteStream('', { fd });
  // A write error (a full disk) surfaces at the next write or at finish(), not as a crash.
  out.on('error', () => undefined);
  return {
    out,
    name: file,
    partial: target,
    async finish() {
      out.end();
      await finished(out);
      if (!inPlace) renameSync(target, file);
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...HELP,
      agent: { type: 'string' },
      namespace: { type: 'string' },
      types: { type: 'string' },
      'include-deprecated': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 0);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(MemoryStoreServiceClient);
    const sink = sinkOf(values.output);
    // No bar when the rows themselves go to the terminal.
    const progress = startProgress({
      label: 'export',
      unit: 'memories',
      interactive: sink.out !== process.stdout || process.stdout.isTTY !== true,
    });
    let rows = 0;
    let invalid = 0;
    try {
      const call = client.exportMemories(
        {
          agent_id: values.agent ?? '',
          namespace: values.namespace ?? '',
          memory_types: listOption(values.types),
          include_deprecated: values['include-deprecated'] === true,
        },
        conn.metadata(),
      );
      try {
        for await (const m of call as AsyncIterable<Memory>) {
          if (!sink.out.write(JSON.stringify(m) + '\n')) await once(sink.out, 'drain');
          rows += 1;
          if (m.integrity_status === 'invalid') invalid += 1;
          progress.update(rows);
        }
      } catch (err) {
        throw conn.failure(err);
      }
      await sink.finish();
    } catch (err) {
      progress.stop();
      if (sink.out !== process.stdout) {
        sink.out.destroy();
        progress.log(`export: stopped after ${rows} rows, which are in ${sink.partial}`);
      }
      throw err;
    }
    progress.stop();
    const note = invalid > 0 ? ` (${invalid} whose signature does not verify: import refuses them)` : '';
    progress.log(`export: ${rows} memories written to ${sink.name}${note}`);
  });
}
