/** Prints one line to stderr and exits 2: what every CLI error looks like (never a stack trace). */
export function fail(message: string): never {
  process.stderr.write(`engram: ${message}\n`);
  process.exit(2);
}
