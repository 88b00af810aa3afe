/**
 * engram keys create | list | revoke: API keys of a project, through the AdminService of
 * memory-store with a system key (other projects than the key's: the instance administrator only).
 */
import { runGroup, verbTable, type Verb } from '../verbs.ts';

const VERBS: readonly Verb[] = [
  { name: 'create', summary: 'create a key (shown once)', load: () => import('./keys/create.ts') },
  {
    name: 'list',
    summary: 'list the keys of a project (never the keys themselves)',
    load: () => import('./keys/list.ts'),
  },
  {
    name: 'revoke',
    summary: 'revoke a key (every instance within 5 s)',
    load: () => import('./keys/revoke.ts'),
  },
];

export const USAGE = `usage: engram keys <command> [options]      engram keys <command> --help for its options

commands:
${verbTable(VERBS)}`;

export function run(args: string[]): Promise<void> {
  return runGroup('keys', USAGE, VERBS, args);
}
