import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { signV1, signV2 } from '@engram/integrity';
import { backfillIntegrity } from '@engram/memory-store';
import { ENGINES } from '@engram/testing';
import { exportAll, knexOf } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const SCRIPT = fileURLToPath(new URL('../../scripts/backfill-integrity', import.meta.url));

interface Report {
  dry_run: boolean;
  scanned: number;
  upgradedV1: number;
  signedUnsigned: number;
  tampered: number;
  tamperedIds: string[];
}

function runBackfill(env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number; report: Report; stderr: string }>((resolve, reject) => {
    execFile(
      SCRIPT,
      ['--json', ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        try {
          resolve({ code, report: JSON.parse(stdout) as Report, stderr });
        } catch {
          reject(new Error(`backfill failed (${code}): ${stderr}`));
        }
      },
    );
  });
}

type Kind = 'v1' | 'unsigned' | 'tampered';

/** Legacy rows written straight into the table, as a pre-v2 deployment left them. */
async function insertLegacy(
  knex: Knex,
  key: string,
  project: string,
  count: number,
  kind: Kind,
  tag: string,
) {
  const rows = Array.from({ length: count }, (_, i) => {
    const content = `${tag} legacy memory ${i} about cache eviction policies.`;
    const fields = { project_id: project, agent_id: 'legacy-agent', content };
    const hash =
      kind === 'unsigned'
        ? null
        : signV1(key, kind === 'v1' ? fields : { ...fields, content: content + ' (original)' });
    return {
      id: knex.raw('gen_random_uuid()'),
      project_id: project,
      namespace: 'legacy',
      agent_id: 'legacy-agent',
      content,
      content_key: `${tag}-${i}`,
      memory_type: 'standard',
      scope: 'global',
      trust_level: 'internal',
      integrity_hash: hash,
    };
  });
  await knex.batchInsert('memories', rows, 1000);
}

async function formats(knex: Knex, project: string): Promise<Record<string, number>> {
  const rows: { f: string; n: string | number }[] = await knex('memories')
    .where({ project_id: project, namespace: 'legacy' })
    .select(
      knex.raw(
        `case when integrity_hash is null then 'none' when integrity_hash like 'v2:%' then 'v2' else 'v1' end as f`,
      ),
    )
    .count('* as n')
    .groupBy('f');
  return Object.fromEntries(rows.map((r) => [r.f, Number(r.n)]));
}

describe('scripts/backfill-integrity on a 20,000-row table (postgres)', function () {
  this.timeout(300_000);
  let t: TestEngram;
  let env: Record<string, string>;
  before(async () => {
    t = await startTestEngram('postgres', { INTEGRITY_REQUIRE_SIGNED: 'true' });
    env = { DATABASE_URL: t.database!.url, SERVICE_INTEGRITY_KEY: t.integrityKey };
    const knex = knexOf(t);
    await insertLegacy(knex, t.integrityKey, 'default', 12_000, 'v1', 'a');
    await insertLegacy(knex, t.integrityKey, 'default', 7_990, 'unsigned', 'b');
    await insertLegacy(knex, t.integrityKey, 'default', 10, 'tampered', 'c');
    await insertLegacy(knex, t.integrityKey, 'p2', 100, 'unsigned', 'd');
  });
  after(() => t?.stop());

  it('a start with INTEGRITY_REQUIRE_SIGNED=true says how many rows need the backfill and how to run it', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array, ...rest: never[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    };
    process.stderr.write = capture;
    let second: TestEngram | undefined;
    try {
      second = await startTestEngram('postgres', {
        DATABASE_URL: t.database!.url,
        INTEGRITY_REQUIRE_SIGNED: 'true',
      });
      for (let i = 0; i < 100 && !lines.some((l) => l.includes('INTEGRITY_REQUIRE_SIGNED')); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      process.stderr.write = write;
      await second?.stop();
    }
    const warning = lines.find((l) => l.includes('INTEGRITY_REQUIRE_SIGNED'));
    assert.ok(warning, 'a warning was printed');
    assert.match(warning, /8090 unsigned and 12010 legacy v1 memories/);
    assert.match(warning, /scripts\/backfill-integrity/);
  });

  it('dry run reports without writing', async () => {
    const { code, report } = await runBackfill(env, ['--dry-run', '--project-id', 'default']);
    assert.equal(code, 1, 'tampered rows make the exit status 1');
    assert.deepEqual(
      [report.dry_run, report.scanned, report.upgradedV1, report.signedUnsigned, report.tampered],
      [true, 20_000, 12_000, 7_990, 10],
    );
    assert.deepEqual(await formats(knexOf(t), 'default'), { v1: 12_010, none: 7_990 });
  });

  it('upgrades verified v1 and unsigned rows, refuses tampered ones, stays in its project, and is idempotent', async () => {
    const first = await runBackfill(env, ['--project-id', 'default', '--batch-size', '1000']);
    assert.equal(first.code, 1);
    assert.deepEqual(
      [
        first.report.upgradedV1,
        first.report.signedUnsigned,
        first.report.tampered,
        first.report.tamperedIds.length,
      ],
      [12_000, 7_990, 10, 10],
    );
    assert.match(first.stderr, /100%/);
    const knex = knexOf(t);
    assert.deepEqual(await formats(knex, 'default'), { v2: 19_990, v1: 10 });
    assert.deepEqual(await formats(knex, 'p2'), { none: 100 });
    // Tampered rows keep their old hash and read as invalid; upgraded rows verify as v2.
    const tampered = await knex('memories').whereIn('id', first.report.tamperedIds).select('integrity_hash');
    assert.ok(tampered.every((r: { integrity_hash: string }) => !r.integrity_hash.startsWith('v2:')));
    const sample = (await knex('memories')
      .where({ project_id: 'default', namespace: 'legacy' })
      .whereLike('integrity_hash', 'v2:%')
      .first()) as {
      id: string;
      agent_id: string;
      scope: string;
      trust_level: string;
      content: string;
      integrity_hash: string;
    };
    assert.equal(sample.integrity_hash, signV2(t.integrityKey, { ...sample, project_id: 'default' }));
    assert.equal((await t.admin.get(`/memories/${sample.id}`)).status, 200);
    const exported = await exportAll(t.admin, { namespace: 'legacy' });
    assert.equal(exported.filter((r) => r.integrity_status === 'invalid').length, 10);
    assert.equal(exported.filter((r) => r.integrity_status === 'valid').length, 19_990);

    const again = await runBackfill(env, ['--project-id', 'default']);
    assert.deepEqual(
      [again.report.scanned, again.report.upgradedV1, again.report.signedUnsigned, again.report.tampered],
      [10, 0, 0, 10],
    );
    assert.deepEqual(await formats(knex, 'default'), { v2: 19_990, v1: 10 });
  });

  it('resumes after a given id', async () => {
    const ids: string[] = (await knexOf(t)('memories')
      .where({ project_id: 'p2' })
      .orderBy('id')
      .pluck('id')) as string[];
    const tail = await runBackfill(env, ['--project-id', 'p2', '--after', ids[59]!]);
    assert.equal(tail.code, 0);
    assert.equal(tail.report.signedUnsigned, 40);
    const rest = await runBackfill(env, ['--project-id', 'p2']);
    assert.equal(rest.report.signedUnsigned, 60);
    assert.deepEqual(await formats(knexOf(t), 'p2'), { v2: 100 });
  });
});

for (const engine of ENGINES) {
  describe(`backfillIntegrity on ${engine}`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    it('upgrades v1 and unsigned rows in small batches and reports tampered ones', async () => {
      const knex = knexOf(t);
      await insertLegacy(knex, t.integrityKey, 'default', 7, 'v1', 'x');
      await insertLegacy(knex, t.integrityKey, 'default', 5, 'unsigned', 'y');
      await insertLegacy(knex, t.integrityKey, 'default', 2, 'tampered', 'z');
      const progress: number[] = [];
      const report = await backfillIntegrity(knex, {
        integrityKey: t.integrityKey,
        dryRun: false,
        batchSize: 4,
        onProgress: (p) => progress.push(p.scanned),
      });
      assert.deepEqual(
        [report.total, report.upgradedV1, report.signedUnsigned, report.tampered],
        [14, 7, 5, 2],
      );
      assert.deepEqual(progress, [4, 8, 12, 14]);
      assert.deepEqual(await formats(knex, 'default'), { v2: 12, v1: 2 });
      const again = await backfillIntegrity(knex, {
        integrityKey: t.integrityKey,
        dryRun: false,
        batchSize: 4,
      });
      assert.deepEqual([again.upgradedV1, again.signedUnsigned, again.tampered], [0, 0, 2]);
    });
  });
}
