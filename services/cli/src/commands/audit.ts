/** engram audit tail | flagged: the security view of a project (privileged or system keys). */
import { runGroup, verbTable, type Verb } from '../verbs.ts';

const VERBS: readonly Verb[] = [
  {
    name: 'tail',
    summary: 'print the latest audit events; -f keeps printing new ones',
    load: () => import('./audit/tail.ts'),
  },
  {
    name: 'flagged',
    summary: 'list memories whose content was flagged at write time',
    load: () => import('./audit/flagged.ts'),
  },
];

export const USAGE = `usage: engram audit <command> [options]      engram audit <command> --help for its options

commands:
${verbTable(VERBS)}`;

export function run(args: string[]): Promise<void> {
  return runGroup('audit', USAGE, VERBS, args);
}
