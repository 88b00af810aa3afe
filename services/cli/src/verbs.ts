/**
 * Verb tables. The top level (engram.ts) and each group of sub-verbs (engram memories add|get|…)
 * are tables of the same shape, so adding a verb is one entry, and `--help` lists exactly the verbs
 * that exist.
 */
import { usageError } from './exit.ts';

/** What a verb module exports. */
export interface VerbModule {
  /** Prints on --help (stdout, exit 0) and after a usage error (stderr, exit 2). */
  readonly USAGE: string;
  /** Runs the verb on the arguments after its name. */
  run(args: string[]): Promise<void>;
}

export interface Verb {
  readonly name: string;
  /** One line for the table of its group. */
  readonly summary: string;
  readonly load: () => Promise<VerbModule>;
}

/** The table as help prints it: `  name   summary`. */
export function verbTable(verbs: readonly Verb[]): string {
  const width = Math.max(...verbs.map((v) => v.name.length)) + 2;
  return verbs.map((v) => `  ${v.name.padEnd(width)}${v.summary}`).join('\n');
}

/**
 * Runs `engram <group> <verb> …`: no verb or an unknown one is a usage error, `--help` / `-h` prints
 * the group's usage.
 */
export async function runGroup(
  group: string,
  usage: string,
  verbs: readonly Verb[],
  args: string[],
): Promise<void> {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h') {
    process.stdout.write(usage + '\n');
    return;
  }
  if (name === undefined) usageError(`engram ${group}: which command?`, usage);
  const verb = verbs.find((v) => v.name === name);
  if (!verb) usageError(`engram ${group}: unknown command: ${name}`, usage);
  await (await verb.load()).run(rest);
}
