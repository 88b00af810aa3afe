/**
 * engram: the command line of an Engram instance. Each command group lives in commands/<group>.ts and
 * exports `run(argv)` and `USAGE`; this file only dispatches.
 */
import { fail } from './fail.ts';

interface Command {
  run(argv: string[]): Promise<void>;
  USAGE: string;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  keys: () => import('./commands/admin.ts'),
  projects: () => import('./commands/admin.ts'),
  'backfill-integrity': () => import('./commands/backfill-integrity.ts'),
  reembed: () => import('./commands/reembed.ts'),
};

async function main(argv: string[]): Promise<void> {
  const group = argv[0];
  const load = group === undefined ? undefined : COMMANDS[group];
  if (!load) {
    const usages = await Promise.all(
      [...new Set(Object.values(COMMANDS))].map(async (l) => (await l()).USAGE),
    );
    process.stdout.write([...new Set(usages)].join('\n') + '\n');
    if (group !== undefined && group !== '--help' && group !== '-h') process.exit(2);
    return;
  }
  await (await load()).run(argv);
}

main(process.argv.slice(2)).catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
