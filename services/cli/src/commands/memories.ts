/** engram memories add | get | query | export | import: memories over gRPC, as an agent or an admin. */
import { runGroup, verbTable, type Verb } from '../verbs.ts';

const VERBS: readonly Verb[] = [
  {
    name: 'add',
    summary: 'add one memory through the write pipeline',
    load: () => import('./memories/add.ts'),
  },
  { name: 'get', summary: 'print one memory (verified on read)', load: () => import('./memories/get.ts') },
  {
    name: 'query',
    summary: 'find memories by meaning (or hybrid: meaning and words)',
    load: () => import('./memories/query.ts'),
  },
  {
    name: 'export',
    summary: 'write memories as NDJSON, one export row a line',
    load: () => import('./memories/export.ts'),
  },
  {
    name: 'import',
    summary: 'import NDJSON export rows in batches (resumable)',
    load: () => import('./memories/import.ts'),
  },
];

export const USAGE = `usage: engram memories <command> [options]      engram memories <command> --help for its options

commands:
${verbTable(VERBS)}`;

export function run(args: string[]): Promise<void> {
  return runGroup('memories', USAGE, VERBS, args);
}
