/**
 * Runs a process entry point: a startup failure (a bad setting, a port taken, a database that
 * refuses) is one clear line on stderr and exit code 1, never a stack dump.
 */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: failed to start: ${message}\n`);
    process.exit(1);
  });
}
