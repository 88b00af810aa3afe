import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '@engram/testing';
import { connection, engram, engramOk } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** The verbs a help text lists under `commands:` (empty for a verb without sub-verbs). */
function listedVerbs(help: string): string[] {
  const at = help.indexOf('\ncommands:\n');
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of help.slice(at + '\ncommands:\n'.length).split('\n')) {
    const m = /^ {2}([a-z][a-z-]*) {2,}\S/.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}

/** Every command path, found the way a user finds them: from `engram --help` down, in help order. */
async function everyCommand(): Promise<string[][]> {
  const visit = async (path: string[]): Promise<string[][]> => {
    const verbs = listedVerbs((await engramOk([...path, '--help'], {})).stdout);
    const below = await Promise.all(verbs.map((v) => visit([...path, v])));
    return [...(path.length > 0 ? [path] : []), ...below.flat()];
  };
  return visit([]);
}

/** fn over every item, a few CLI processes at a time (each one is a Node start). */
async function eachOf<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

describe('engram: help, usage errors and exit statuses', function () {
  this.timeout(120_000);
  let commands: string[][];

  before(async () => {
    commands = await everyCommand();
  });

  it('lists every verb and sub-verb in the help (each of which runs: the next test)', () => {
    const listed = commands.map((c) => c.join(' '));
    const expected = [
      'memories',
      'memories add',
      'memories get',
      'memories query',
      'memories export',
      'memories import',
      'audit',
      'audit tail',
      'audit flagged',
      'keys',
      'keys create',
      'keys list',
      'keys revoke',
      'projects',
      'projects create',
      'backfill-integrity',
      'reembed',
    ];
    assert.deepEqual(
      listed.filter((c) => expected.includes(c)),
      expected,
      listed.join(', '),
    );
  });

  it('prints the usage of every command on --help and -h, on stdout, with exit status 0', async () => {
    await eachOf(
      commands.flatMap((path) => ['--help', '-h'].map((flag) => [...path, flag])),
      async (args) => {
        const r = await engramOk(args, {});
        const path = args.slice(0, -1).join(' ');
        assert.ok(r.stdout.startsWith(`usage: engram ${path}`), `${args.join(' ')}: ${r.stdout}`);
        assert.equal(r.stderr, '');
      },
    );
  });

  it('documents the exit statuses in engram --help and in README.md', async () => {
    const help = (await engramOk(['--help'], {})).stdout;
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    for (const status of ['0', '1', '2', '3', '130']) {
      assert.match(
        help,
        new RegExp(`^ {2}${status} +\\S`, 'm'),
        `engram --help explains exit status ${status}`,
      );
      assert.match(readme, new RegExp(`^\\| ${status} \\|`, 'm'), `README.md explains exit status ${status}`);
    }
  });

  it('answers an unknown command or option with one line and the usage on stderr, exit status 2', async () => {
    for (const args of [[], ['frobnicate'], ['memories'], ['memories', 'frobnicate'], ['audit', 'tails']]) {
      const r = await engramOk(args, {}, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^engram: .+\nusage: engram/);
    }
    const leaves = commands.filter((p) => !commands.some((q) => q.length > p.length && q[0] === p[0]));
    await eachOf(leaves, async (path) => {
      const r = await engramOk([...path, '--no-such-option'], {}, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^engram: unknown option '--no-such-option'\n/, path.join(' '));
      assert.ok(r.stderr.includes(`usage: engram ${path.join(' ')}`), path.join(' '));
    });
    const badValue = await engramOk(['memories', 'query', 'x', '--top-k', '500'], {}, 2);
    assert.match(badValue.stderr, /^engram: --top-k must be an integer between 1 and 100\n/);
    const noKey = await engramOk(['memories', 'get', 'x'], {}, 2);
    assert.match(noKey.stderr, /^engram: an API key is required/);
  });

  describe('against a running Engram', () => {
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram('pglite');
    });
    after(() => t?.stop());

    it('exits 3 when Engram cannot be reached or refuses the key, 1 when it refuses the request', async () => {
      const port = await freePort();
      const unreachable = await engram(['memories', 'get', 'x'], {
        ENGRAM_GRPC_ADDR: `127.0.0.1:${port}`,
        ENGRAM_API_KEY: t.adminKey,
      });
      assert.equal(unreachable.code, 3, unreachable.stderr);
      assert.match(
        unreachable.stderr,
        new RegExp(`^engram: cannot reach Engram at 127\\.0\\.0\\.1:${port}: .+\\n$`),
      );

      for (const args of [
        ['memories', 'query', 'x'],
        ['audit', 'tail'],
        ['keys', 'list'],
      ]) {
        const wrongKey = await engram(args, connection(t, 'egk_not_a_key_of_this_instance'));
        assert.equal(wrongKey.code, 3, `${args.join(' ')}: ${wrongKey.stderr}`);
        assert.match(wrongKey.stderr, /^engram: authentication failed: .*\(UNAUTHENTICATED\)\n$/);
        assert.ok(!wrongKey.stderr.includes('egk_not_a_key'), 'the key is never echoed');
      }

      const refused = await engram(['memories', 'add', '   ', '--agent', 'a'], connection(t));
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(
        refused.stderr,
        /^engram: request failed validation \(VALIDATION_FAILED\) - content: .+\n$/,
      );
      assert.ok(!/\n\s+at /.test(refused.stderr), 'no stack trace');

      const internal = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'auditor' });
      const notAdmin = await engram(['audit', 'flagged'], connection(t, internal.key ?? ''));
      assert.equal(notAdmin.code, 1, notAdmin.stderr);
      assert.match(notAdmin.stderr, /\(ADMIN_REQUIRED\)/);
    });
  });
});
