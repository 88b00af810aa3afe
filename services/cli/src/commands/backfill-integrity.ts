/**
 * engram backfill-integrity: upgrades legacy (v1) and unsigned memory signatures to v2, directly in
 * the database. Run it before turning on INTEGRITY_REQUIRE_SIGNED=true.
 *   engram backfill-integrity [--project-id P] [--dry-run] [--batch-size N] [--after ID] [--json]
 * Database: DATABASE_URL, else the embedded PGlite store in ENGRAM_DATA_DIR (stop the service first:
 * PGlite allows one process). Key: SERVICE_INTEGRITY_KEY, else SERVICE_API_KEY, else the embedded
 * data directory's secrets.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEngramConfig } from '@engram/config';
import { hasMemoriesTable } from '@engram/memories';
import { backfillIntegrity, type BackfillProgress } from '@engram/memory-store';
import { HELP, intOption, JSON_OPTION, parseCommand } from '../args.ts';
import { EXIT, fail } from '../exit.ts';
import { openStore } from '../store.ts';
import { startProgress, type Progress } from '../progress.ts';

export const USAGE = `usage: engram backfill-integrity [--project-id P] [--dry-run] [--batch-size N] [--after MEMORY_ID] [--json]
  Upgrades v1 and unsigned memory signatures to v2 (a v1 row only when its hash verifies; tampered
  rows are reported, never re-signed), in batches by id, resumable with --after. Shows a progress bar
  on a terminal. Exit status 1 when tampered rows exist.
options:
  --project-id P      only this project
  --dry-run           report what it would do; write nothing
  --batch-size N      rows per batch (1 to 10000, default 500)
  --after MEMORY_ID   start after this memory id (resume)
  --json              the report as JSON
database: DATABASE_URL, else the embedded store in ENGRAM_DATA_DIR (stop the service first).
key: SERVICE_INTEGRITY_KEY, else SERVICE_API_KEY, else <ENGRAM_DATA_DIR>/secrets.json.`;

function integrityKey(config: ReturnType<typeof loadEngramConfig>): string {
  const configured = config.serviceIntegrityKey ?? config.serviceApiKey;
  if (configured) return configured;
  const file = join(config.dataDir, 'secrets.json');
  if (config.databaseUrl === undefined && existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { integrity_key?: unknown };
    if (typeof stored.integrity_key === 'string') return stored.integrity_key;
  }
  return fail(
    'no integrity key: set SERVICE_INTEGRITY_KEY (or SERVICE_API_KEY), or point ENGRAM_DATA_DIR at the store',
  );
}

/** The shared progress display, started at the first report (the first one brings the total). */
function progressPrinter(): { update: (p: BackfillProgress) => void; done: () => void } {
  let bar: Progress | undefined;
  return {
    update(p) {
      bar ??= startProgress({ label: 'backfill-integrity', total: p.total });
      bar.update(p.scanned, `scanned, ${p.upgradedV1 + p.signedUnsigned} upgraded, ${p.tampered} tampered`);
    },
    done() {
      bar?.stop();
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    options: {
      ...JSON_OPTION,
      ...HELP,
      'project-id': { type: 'string' },
      'dry-run': { type: 'boolean' },
      'batch-size': { type: 'string' },
      after: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const batchSize = intOption(values['batch-size'], 'batch-size', 500, 1, 10_000, USAGE);
  if (values.after !== undefined && !/^[0-9a-f-]{36}$/i.test(values.after))
    fail('--after must be a memory id');
  const config = loadEngramConfig(process.env);
  const key = integrityKey(config);
  const db = await openStore(config);
  const progress = progressPrinter();
  try {
    if (!(await hasMemoriesTable(db.knex)))
      fail('this database holds no memories table (has Engram ever started on it?)');
    const report = await backfillIntegrity(db.knex, {
      integrityKey: key,
      projectId: values['project-id'],
      dryRun: values['dry-run'] === true,
      batchSize,
      afterId: values.after?.toLowerCase(),
      onProgress: progress.update,
    });
    progress.done();
    const verb = values['dry-run'] ? 'would upgrade' : 'upgraded';
    if (values.json) {
      process.stdout.write(JSON.stringify({ dry_run: values['dry-run'] === true, ...report }) + '\n');
    } else {
      const lines = [
        `backfill-integrity${values['dry-run'] ? ' (dry run, nothing written)' : ''}: scanned ${report.scanned} legacy rows` +
          (values['project-id'] ? ` of project ${values['project-id']}` : ''),
        `  ${verb} ${report.upgradedV1} v1 rows and ${report.signedUnsigned} unsigned rows to v2`,
        `  tampered legacy rows (v1 hash does not verify; not re-signed): ${report.tampered}`,
        ...report.tamperedIds.slice(0, 20).map((id) => `    ${id}`),
      ];
      if (report.skippedConcurrent > 0)
        lines.push(`  changed by another writer meanwhile (left alone): ${report.skippedConcurrent}`);
      process.stdout.write(lines.join('\n') + '\n');
    }
    if (report.tampered > 0) process.exitCode = EXIT.failed;
  } finally {
    progress.done();
    await db.close();
  }
}
