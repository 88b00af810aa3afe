import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connection,
  engramOk,
  hasControlCharacters,
  ndjson,
  NO_RATE_LIMITS,
  seed,
  startCli,
  waitFor,
} from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface Row {
  id: string;
  project_id: string;
  agent_id: string;
  content: string;
  memory_type: string;
  metadata: Record<string, unknown>;
  is_deprecated: boolean;
}

interface ImportSummary {
  read: number;
  imported: number;
  already_present: number;
  failed: number;
  skipped: number;
  last_source_id: string | null;
  interrupted: boolean;
  failures: { line: number; source_id: string; reason: string }[];
}

describe('engram memories (compiled CLI, gRPC, embedded Engram)', function () {
  this.timeout(120_000);
  let t: TestEngram;
  let dir: string;
  let env: Record<string, string>;
  /** A system key of project team-b, made with the CLI itself. */
  let teamB: Record<string, string>;

  before(async () => {
    t = await startTestEngram('pglite', NO_RATE_LIMITS);
    dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    env = connection(t);
    await engramOk(['projects', 'create', 'team-b'], env);
    const key = JSON.parse(
      (await engramOk(['keys', 'create', '--project', 'team-b', '--trust', 'system', '--json'], env)).stdout,
    ) as {
      api_key: string;
    };
    teamB = connection(t, key.api_key);
  });
  after(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string) => join(dir, name);
  const exportRows = async (args: string[], e = env) =>
    ndjson<Row>((await engramOk(['memories', 'export', ...args], e)).stdout);
  /** The memories of one author (an unbound system key exports every memory of its project). */
  const rowsOf = async (agent: string, e = env) =>
    (await exportRows([], e)).filter((r) => r.agent_id === agent);
  const importJson = async (args: string[], e: Record<string, string>, status = 0) =>
    JSON.parse(
      (await engramOk(['memories', 'import', ...args, '--json'], e, status)).stdout,
    ) as ImportSummary;

  it('adds (argument or stdin), gets and queries a memory', async () => {
    const added = await engramOk(
      [
        'memories',
        'add',
        'Deploys of payments fail with E4711 when the canary is unhealthy',
        '--agent',
        'planner',
        '--type',
        'semantic',
        '--metadata',
        '{"ticket":"OPS-1"}',
      ],
      env,
    );
    const id = /^added ([0-9a-f-]{36}) \(semantic, global, default\)\n$/.exec(added.stdout)?.[1];
    assert.ok(id, added.stdout);
    const fromStdin = await engramOk(
      ['memories', 'add', '-', '--agent', 'planner', '--json'],
      env,
      0,
      'Coffee is on the third floor\n',
    );
    const piped = JSON.parse(fromStdin.stdout) as { id: string };

    const got = await engramOk(['memories', 'get', id, '--agent', 'planner'], env);
    assert.match(got.stdout, new RegExp(`^id +${id}$`, 'm'));
    assert.match(got.stdout, /^type +semantic$/m);
    assert.match(got.stdout, /\n\nDeploys of payments fail with E4711 when the canary is unhealthy\n$/);
    const json = JSON.parse(
      (await engramOk(['memories', 'get', piped.id, '--agent', 'planner', '--json'], env)).stdout,
    ) as Row;
    assert.equal(json.content, 'Coffee is on the third floor', 'the trailing newline of stdin is not stored');
    assert.deepEqual(
      (JSON.parse((await engramOk(['memories', 'get', id, '--json'], env)).stdout) as Row).metadata,
      { ticket: 'OPS-1' },
    );

    for (const hybrid of [[], ['--hybrid']]) {
      const q = await engramOk(
        ['memories', 'query', 'what does E4711 mean', '--agent', 'planner', '--top-k', '1', ...hybrid],
        env,
      );
      const lines = q.stdout.trim().split('\n');
      assert.equal(lines.length, 1, q.stdout);
      assert.match(lines[0]!, new RegExp(`^\\d\\.\\d{3}  ${id}  semantic  planner  Deploys of payments`));
    }

    const missing = await engramOk(['memories', 'get', '01234567-89ab-7def-8123-456789abcdef'], env, 1);
    assert.equal(missing.stderr, 'engram: memory not found (NOT_FOUND)\n');
    const badMetadata = await engramOk(['memories', 'add', 'x', '--metadata', '[1]'], env, 2);
    assert.match(badMetadata.stderr, /^engram: --metadata must be a JSON object\n/);
  });

  it('exports exactly the rows of POST /memories/export, to stdout or a file', async () => {
    await seed(t.admin, 'exporter', 120, 'Export fact');
    const cli = (await engramOk(['memories', 'export', '--agent', 'exporter'], env)).stdout;
    const rest = await t.admin.post('/memories/export', { agent_id: 'exporter' });
    assert.equal(rest.status, 200);
    assert.equal(cli, rest.text, 'byte for byte the REST export');
    const toFile = await engramOk(
      ['memories', 'export', '--agent', 'exporter', '-o', file('export.ndjson')],
      env,
    );
    assert.equal(toFile.stdout, '');
    assert.equal(readFileSync(file('export.ndjson'), 'utf8'), cli);
    assert.match(toFile.stderr, /export: \d+ memories written to .*export\.ndjson\n$/);
  });

  it('round trip: what one project exports, another imports as another agent, row for row', async () => {
    const source = await exportRows(['--agent', 'exporter', '--types', 'standard']);
    const mine = source.filter((r) => r.agent_id === 'exporter');
    assert.equal(mine.length, 120);
    writeFileSync(file('exporter.ndjson'), mine.map((r) => JSON.stringify(r)).join('\n') + '\n');

    const r = await engramOk(
      ['memories', 'import', file('exporter.ndjson'), '--agent', 'copied', '--batch-size', '25'],
      teamB,
    );
    assert.match(r.stdout, /^import: read 120, imported 120, already present 0, failed 0, skipped 0\n/);
    assert.match(
      r.stdout,
      new RegExp(`last source id: ${mine[119]!.id} \\(resume: --after ${mine[119]!.id}\\)`),
    );
    assert.match(r.stderr, /^import: 100% 120\/120 imported 120, failed 0$/m, 'a progress line per tenth');
    assert.ok(!hasControlCharacters(r.stderr), 'no terminal control characters off a terminal');

    const copied = await rowsOf('copied', teamB);
    assert.equal(copied.length, 120);
    assert.deepEqual(copied.map((c) => c.content).sort(), mine.map((m) => m.content).sort());
    for (const c of copied) {
      assert.equal(c.project_id, 'team-b');
      assert.equal(c.agent_id, 'copied');
      assert.ok(!mine.some((m) => m.id === c.id), 'a new id');
    }
    // The source project did not change.
    assert.equal((await rowsOf('copied')).length, 0);
  });

  it('resumes with --after: the rows up to that id are skipped, nothing is imported twice', async () => {
    const all = readFileSync(file('exporter.ndjson'), 'utf8').trim().split('\n');
    writeFileSync(file('first-40.ndjson'), all.slice(0, 40).join('\n') + '\n');
    const first = await importJson([file('first-40.ndjson'), '--agent', 'resumed'], teamB);
    assert.equal(first.imported, 40);
    const resumeAt = first.last_source_id!;
    assert.equal(resumeAt, (JSON.parse(all[39]!) as Row).id);

    const rest = await importJson(
      [file('exporter.ndjson'), '--agent', 'resumed', '--after', resumeAt],
      teamB,
    );
    assert.deepEqual(
      { read: rest.read, skipped: rest.skipped, imported: rest.imported, failed: rest.failed },
      { read: 120, skipped: 40, imported: 80, failed: 0 },
    );
    assert.equal((await rowsOf('resumed', teamB)).length, 120);

    // Running it all again imports nothing new: every row is already there.
    const again = await importJson([file('exporter.ndjson'), '--agent', 'resumed'], teamB);
    assert.deepEqual([again.imported, again.already_present], [0, 120]);
    assert.equal((await rowsOf('resumed', teamB)).length, 120);

    const unknown = await engramOk(
      [
        'memories',
        'import',
        file('first-40.ndjson'),
        '--agent',
        'resumed',
        '--after',
        '01234567-89ab-7def-8123-456789abcdef',
      ],
      teamB,
      1,
    );
    assert.match(
      unknown.stderr,
      /engram: no row has the id 01234567-89ab-7def-8123-456789abcdef given to --after: nothing was imported\n$/,
    );
  });

  it('reports each failed row with its line and reason, imports the rest, exits 1', async () => {
    const rows = readFileSync(file('exporter.ndjson'), 'utf8').trim().split('\n').slice(0, 6);
    const deprecated = { ...(JSON.parse(rows[2]!) as Row), is_deprecated: true };
    const secret = { ...(JSON.parse(rows[4]!) as Row), content: 'the AWS key is AKIAIOSFODNN7EXAMPLE' };
    const lines = [
      rows[0],
      'this is not JSON',
      JSON.stringify(deprecated),
      rows[3],
      '',
      JSON.stringify(secret),
      '{"content": 5}',
      rows[5],
    ];
    writeFileSync(file('mixed.ndjson'), lines.join('\n') + '\n');
    const r = await engramOk(
      ['memories', 'import', file('mixed.ndjson'), '--agent', 'mixed', '--batch-size', '2'],
      teamB,
      1,
    );
    assert.match(r.stdout, /^import: read 7, imported 3, already present 0, failed 4, skipped 0\n/);
    assert.match(r.stderr, /^import: line 2: INVALID_ROW: not valid JSON$/m);
    assert.match(
      r.stderr,
      new RegExp(`^import: line 3 \\(source id ${deprecated.id}\\): DEPRECATED_NOT_IMPORTED: .+$`, 'm'),
    );
    assert.match(
      r.stderr,
      new RegExp(`^import: line 6 \\(source id ${secret.id}\\): SECURITY_REJECTED: .+$`, 'm'),
    );
    assert.match(r.stderr, /^import: line 7: INVALID_ROW: .*content.*$/m);
    assert.ok(!r.stderr.includes('AKIAIOSFODNN7EXAMPLE'), 'the rejected content is never printed');
    assert.equal((await rowsOf('mixed', teamB)).length, 3);

    const json = await importJson([file('mixed.ndjson'), '--agent', 'mixed-json'], teamB, 1);
    assert.deepEqual(
      json.failures.map((f) => [f.line, f.reason]),
      [
        [2, 'INVALID_ROW'],
        [3, 'DEPRECATED_NOT_IMPORTED'],
        [6, 'SECURITY_REJECTED'],
        [7, 'INVALID_ROW'],
      ],
    );
  });

  it('stops after the batch in flight on Ctrl-C, says where to resume, and the resumed run completes it', async () => {
    const ids = await seed(t.admin, 'bulk', 400, 'Interrupted import fact');
    const rows = await rowsOf('bulk');
    assert.equal(rows.length, ids.length);
    writeFileSync(file('bulk.ndjson'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

    const run = startCli(
      ['memories', 'import', file('bulk.ndjson'), '--agent', 'interrupted', '--batch-size', '1'],
      teamB,
    );
    await waitFor(() => /^import: 10% /m.test(run.stderr()), 60_000, 'the first tenth of the import');
    run.child.kill('SIGINT');
    const stopped = await run.done;
    assert.equal(stopped.code, 130, stopped.stderr);
    const resume = /^interrupted: to resume, run the same command with --after ([0-9a-f-]{36})$/m.exec(
      stopped.stdout,
    )?.[1];
    assert.ok(resume, stopped.stdout);
    const done = Number(/^import: read (\d+),/.exec(stopped.stdout)?.[1]);
    assert.ok(done >= 40 && done < 400, stopped.stdout);
    assert.equal(resume, rows[done - 1]!.id, 'the last row whose outcome is known');

    const rest = await importJson([file('bulk.ndjson'), '--agent', 'interrupted', '--after', resume], teamB);
    assert.equal(rest.skipped, done);
    assert.equal(rest.imported + rest.already_present, 400 - done);
    const copied = await rowsOf('interrupted', teamB);
    assert.equal(copied.length, 400, 'every row once');
  });
});
