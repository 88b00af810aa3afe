/**
 * Command-line parsing shared by every verb: node:util parseArgs in strict mode, with --help / -h on
 * every verb, and every mistake turned into a usage error (the message, the verb's usage, exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { messageOf, usageError } from './exit.ts';

/** The --help / -h option every verb takes. */
export const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** --json: machine output on stdout. */
export const JSON_OPTION = { json: { type: 'boolean' } } as const;

/**
 * Parses a verb's arguments; undefined when --help was asked (the usage is then printed on stdout and
 * the verb returns: exit 0).
 */
export function parseCommand<T extends ParseArgsConfig>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>> | undefined {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs<T>({ strict: true, ...config });
  } catch (err) {
    // parseArgs' own hint about `--` is longer than the mistake; the usage follows anyway.
    const text = messageOf(err).replace(/\. To specify a positional argument.*$/, '');
    return usageError(text.charAt(0).toLowerCase() + text.slice(1), usage);
  }
  if ((parsed.values as Record<string, unknown>).help === true) {
    process.stdout.write(usage + '\n');
    return undefined;
  }
  return parsed;
}

/** Exactly the positional arguments a verb takes: too few or too many is a usage error. */
export function expectPositionals(positionals: string[], usage: string, min: number, max = min): void {
  if (positionals.length < min) usageError('missing argument', usage);
  if (positionals.length > max) usageError(`unexpected argument: ${positionals[max]}`, usage);
}

/** An integer option between min and max (undefined: the default). */
export function intOption(
  value: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
  usage: string,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    usageError(`--${name} must be an integer between ${min} and ${max}`, usage);
  return n;
}

/** A comma-separated list option (`--types a,b`); empty items are dropped. */
export function listOption(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
