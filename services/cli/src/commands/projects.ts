/** engram projects create: projects (tenants), through the AdminService of memory-store. */
import { runGroup, verbTable, type Verb } from '../verbs.ts';

const VERBS: readonly Verb[] = [
  {
    name: 'create',
    summary: 'create a project (the instance administrator only)',
    load: () => import('./projects/create.ts'),
  },
];

export const USAGE = `usage: engram projects <command> [options]      engram projects <command> --help for its options

commands:
${verbTable(VERBS)}`;

export function run(args: string[]): Promise<void> {
  return runGroup('projects', USAGE, VERBS, args);
}
