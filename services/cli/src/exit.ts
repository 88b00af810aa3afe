/**
 * Exit statuses and the one way a command fails. Every verb ends through these, so a script can tell
 * "fix your command line" (2) from "Engram said no" (1) from "could not talk to Engram" (3) without
 * parsing messages. `engram --help` and README.md list them.
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The operation failed: Engram refused it, some import rows failed, tampered rows were found. */
  failed: 1,
  /** Usage or configuration: unknown command or option, bad value, missing key or setting. */
  usage: 2,
  /** Engram (or its database) cannot be reached, or authentication failed. */
  unreachable: 3,
  /** Ctrl-C ended a command that was not done (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/** The exit-status table as `engram --help` prints it. */
export const EXIT_USAGE = `exit status:
  0    success
  1    the operation failed: Engram refused it, some import rows failed, tampered rows were found
  2    usage or configuration error: unknown command or option, bad value, missing key or setting
  3    cannot reach Engram (or its database), or authentication failed
  130  interrupted (Ctrl-C) before the end; an interrupted import prints where to resume`;

/** A failure with the message to print (one line) and the exit status; main() reports it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status: ExitStatus,
    /** Printed after the message, on stderr: the usage of the command that was misused. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Stops the command: `engram: <message>` on stderr and the exit status (2 unless told). */
export function fail(message: string, status: ExitStatus = EXIT.usage): never {
  throw new CliError(message, status);
}

/** A usage error: the message, then the command's usage, on stderr; exit status 2. */
export function usageError(message: string, usage: string): never {
  throw new CliError(message, EXIT.usage, usage);
}

/** Node's network errors and PostgreSQL's connection refusals mean "cannot reach": exit 3. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  '28P01', // invalid_password
  '28000', // invalid_authorization_specification
  '3D000', // invalid_catalog_name: the database named does not exist
]);

/** What main() prints and returns for an error no command turned into a CliError. */
export function exitStatusOf(err: unknown): ExitStatus {
  if (err instanceof CliError) return err.status;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return EXIT.unreachable;
  if (err instanceof AggregateError && err.errors.some((e) => exitStatusOf(e) === EXIT.unreachable))
    return EXIT.unreachable;
  return EXIT.failed;
}

/** One line, never a stack trace. */
export function messageOf(err: unknown): string {
  const text =
    err instanceof AggregateError && err.message === ''
      ? err.errors.map((e) => messageOf(e)).join('; ')
      : err instanceof Error
        ? err.message
        : String(err);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'failed';
}
