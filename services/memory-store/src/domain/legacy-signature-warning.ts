/** The exact command that upgrades legacy and unsigned rows (see scripts/backfill-integrity). */
export const BACKFILL_COMMAND =
  'scripts/backfill-integrity --dry-run, then scripts/backfill-integrity (same as `engram backfill-integrity`), ' +
  "run with this service's DATABASE_URL and SERVICE_INTEGRITY_KEY (embedded: its ENGRAM_DATA_DIR, with the service stopped)";

/**
 * The startup warning of INTEGRITY_REQUIRE_SIGNED=true while rows without a v2 signature exist:
 * unsigned rows then fail every read (dropped in drop mode); v1 rows still verify but should be
 * upgraded before they are the only thing between a direct edit and a reader. undefined when there
 * is nothing to say.
 */
export function legacySignatureWarning(
  counts: { unsigned: number; v1: number },
  requireSigned: boolean,
): string | undefined {
  if (!requireSigned || counts.unsigned + counts.v1 === 0) return undefined;
  return (
    `INTEGRITY_REQUIRE_SIGNED=true but ${counts.unsigned} unsigned and ${counts.v1} legacy v1 memories exist; ` +
    `unsigned memories now fail verification on every read. Upgrade them to v2 with: ${BACKFILL_COMMAND}`
  );
}
