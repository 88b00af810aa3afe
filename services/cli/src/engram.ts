#!/usr/bin/env node
/**
 * engram: the command line of an Engram instance. Each verb lives in commands/<verb>.ts and exports
 * `run(args)` and `USAGE`; this file holds the verb table (a new verb is one entry), prints the
 * overall help, and is the one place where a failure becomes a line on stderr and an exit status.
 */
import { CONNECTION_USAGE } from './connection.ts';
import { CliError, EXIT, EXIT_USAGE, exitStatusOf, messageOf } from './exit.ts';
import { verbTable, type Verb } from './verbs.ts';

const VERBS: readonly Verb[] = [
  {
    name: 'memories',
    summary: 'add, get, query, export and import memories',
    load: () => import('./commands/memories.ts'),
  },
  {
    name: 'audit',
    summary: 'print (and follow) the audit log; list flagged memories',
    load: () => import('./commands/audit.ts'),
  },
  {
    name: 'keys',
    summary: 'create, list and revoke API keys (system key)',
    load: () => import('./commands/keys.ts'),
  },
  {
    name: 'projects',
    summary: 'create projects (the instance administrator)',
    load: () => import('./commands/projects.ts'),
  },
  {
    name: 'mcp',
    summary: "serve Engram's MCP tools over stdio (for an MCP client)",
    load: () => import('./commands/mcp.ts'),
  },
  {
    name: 'backfill-integrity',
    summary: 'upgrade legacy and unsigned memory signatures to v2 (database)',
    load: () => import('./commands/backfill-integrity.ts'),
  },
  {
    name: 'reembed',
    summary: 'move the store to another embedding space (database)',
    load: () => import('./commands/reembed.ts'),
  },
];

export const USAGE = `usage: engram <command> [options]      engram <command> --help shows a command's options

commands:
${verbTable(VERBS)}

memories, audit, keys and projects talk to a running Engram over gRPC:
${CONNECTION_USAGE}
mcp talks to the REST gateway (ENGRAM_URL, default http://127.0.0.1:8080) with ENGRAM_API_KEY.
backfill-integrity and reembed work on the database (DATABASE_URL or ENGRAM_DATA_DIR), services stopped.
Output is for people; --json gives machine output where it makes sense. Errors go to stderr.

${EXIT_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (name === undefined) throw new CliError('which command?', EXIT.usage, USAGE);
  const verb = VERBS.find((v) => v.name === name);
  if (!verb) throw new CliError(`unknown command: ${name}`, EXIT.usage, USAGE);
  await (await verb.load()).run(rest);
}

// `engram memories export | head`: the reader went away, which is not an error of ours.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw err;
});

// Whatever escapes a command still ends as one line and a status, never a stack trace.
process.on('uncaughtException', (err) => {
  process.stderr.write(`engram: ${messageOf(err)}\n`);
  process.exit(exitStatusOf(err));
});

main(process.argv.slice(2)).then(
  () => undefined,
  (err: unknown) => {
    process.stderr.write(`engram: ${messageOf(err)}\n`);
    if (err instanceof CliError && err.usage !== undefined) process.stderr.write(err.usage + '\n');
    process.exitCode = exitStatusOf(err);
  },
);
