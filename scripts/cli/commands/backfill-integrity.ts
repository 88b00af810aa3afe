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
import { parseArgs } from 'node:util';
import { loadEngramConfig } from '@engram/config';
import { openDatabase } from '@engram/db';
import { backfillIntegrity, type BackfillProgress } from '@engram/memory-store';
import { fail } from '../fail.ts';

export const USAGE = `usage:
  engram backfill-integrity [--project-id P] [--dry-run] [--batch-size N (default 500)] [--after MEMORY_ID] [--json]
    upgrades v1 and unsigned memory signatures to v2 (a v1 row only when its hash verifies; tampered
    rows are reported, never re-signed). Database: DATABASE_URL or ENGRAM_DATA_DIR (service stopped).
    Key: SERVICE_INTEGRITY_KEY, SERVICE_API_KEY or <ENGRAM_DATA_DIR>/secrets.json. Exit 1 when tampered rows exist.`;

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

/** A progress bar on a terminal; a line every tenth of the work otherwise (logs stay short). */
function progressPrinter(): { update: (p: BackfillProgress) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let lastDecile = -1;
  return {
    update(p) {
      const pct = p.total === 0 ? 100 : Math.min(100, Math.floor((p.scanned / p.total) * 100));
      const text = `${p.scanned}/${p.total} scanned, ${p.upgradedV1 + p.signedUnsigned} upgraded, ${p.tampered} tampered`;
      if (tty) {
        const width = 30;
        const filled = Math.round((pct / 100) * width);
        process.stderr.write(
          `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${text}`,
        );
      } else if (Math.floor(pct / 10) !== lastDecile) {
        lastDecile = Math.floor(pct / 10);
        process.stderr.write(`backfill-integrity: ${pct}% ${text}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.slice(1),
    options: {
      'project-id': { type: 'string' },
      'dry-run': { type: 'boolean' },
      'batch-size': { type: 'string' },
      after: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const batchSize = values['batch-size'] === undefined ? 500 : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    fail('--batch-size must be an integer between 1 and 10000');
  if (values.after !== undefined && !/^[0-9a-f-]{36}$/i.test(values.after))
    fail('--after must be a memory id');
  const config = loadEngramConfig(process.env);
  const key = integrityKey(config);
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: join(config.dataDir, 'pglite'),
    poolMax: 2,
  });
  const progress = progressPrinter();
  try {
    const exists = await db.knex.schema.hasTable('memories');
    if (!exists) fail('this database holds no memories table (has Engram ever started on it?)');
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
    if (report.tampered > 0) process.exitCode = 1;
  } finally {
    await db.close();
  }
}
