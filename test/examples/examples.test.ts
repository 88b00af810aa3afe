import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const execFileAsync = promisify(execFile);
const EXAMPLES = join(REPO_ROOT, 'examples');
const CLIENT = join(REPO_ROOT, 'libs', 'client');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Newest modification time of the files under dir with the given suffix. */
function newest(dir: string, suffix: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(suffix))
      .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs),
  );
}

/**
 * The commands examples/README.md tells a user to run (`node --import tsx examples/<name>.ts`), so
 * the test runs what the README says rather than its own idea of it.
 */
function readmeCommands(): Map<string, string[]> {
  const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
  const commands = new Map<string, string[]>();
  for (const m of readme.matchAll(/^node (--import tsx) (examples\/([a-z-]+)\.ts)$/gm)) {
    commands.set(m[3]!, [...m[1]!.split(' '), m[2]!]);
  }
  return commands;
}

/**
 * Runs `node <args>` from the repository root as a user's shell would: without the test runner's
 * NODE_OPTIONS (tsx, the engram-source condition), so @engram/client resolves to its compiled dist.
 */
async function node(args: readonly string[], env: Record<string, string>): Promise<Outcome> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, {
      cwd: REPO_ROOT,
      env: childEnv,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

function assertLines(out: Outcome, lines: readonly string[]): void {
  assert.equal(out.code, 0, `exit status ${out.code}\n${out.stdout}\n${out.stderr}`);
  for (const line of lines) assert.ok(out.stdout.includes(line), `output has "${line}":\n${out.stdout}`);
  assert.ok(!/egk_/.test(out.stdout + out.stderr), 'no API key is ever printed');
}

describe('examples/: the SDK programs run as the README says, against a running Engram', function () {
  this.timeout(120_000);
  const commands = readmeCommands();
  let t: TestEngram;
  let env: Record<string, string>;
  const run = (name: string) => {
    const args = commands.get(name);
    assert.ok(args, `examples/README.md tells how to run ${name}`);
    return node(args, env);
  };

  before(async () => {
    // The examples import @engram/client as a user would: its compiled dist/, which `make build` emits.
    if (!existsSync(join(CLIENT, 'dist', 'index.js')))
      throw new Error('libs/client/dist/index.js does not exist: run `make build` first');
    if (newest(join(CLIENT, 'src'), '.ts') > newest(join(CLIENT, 'dist'), '.js'))
      throw new Error('libs/client/dist is older than libs/client/src: run `make build` first');
    t = await startTestEngram('pglite');
    env = { ENGRAM_URL: t.baseUrl, ENGRAM_API_KEY: t.adminKey };
  });
  after(() => t?.stop());

  it('the README gives a command for every example, and @engram/client resolves to the compiled package', async () => {
    const programs = readdirSync(EXAMPLES)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    assert.deepEqual([...commands.keys()].sort(), programs);
    assert.deepEqual(programs, ['feedback-loop', 'handoff', 'untrusted-tool-output']);
    const resolved = await node(
      ['--input-type=module', '-e', "console.log(import.meta.resolve('@engram/client'))"],
      {},
    );
    assert.equal(resolved.stdout.trim(), 'file://' + join(CLIENT, 'dist', 'index.js'));
  });

  it('handoff: the writer gets the shared findings, never the private note', async () => {
    assertLines(await run('handoff'), [
      'ok: the shared findings and the global glossary entry are handed over',
      'ok: the private note is not handed over, although the researcher itself can read it',
      'ok: the writer cannot read the private note by id (404 NOT_FOUND)',
      "ok: the writer's key cannot act as the researcher (403 AGENT_MISMATCH)",
      'Done:',
    ]);
  });

  it('feedback-loop: runs and votes put the strategy that worked first in the playbook', async () => {
    const out = await run('feedback-loop');
    assertLines(out, [
      'reflection (reflection, pattern full-restart-outage): Restarting every payments pod at once',
      'canary strategy: 2 helpful, 0 harmful -> 0.67',
      'restart-all:     0 helpful, 2 harmful -> -0.67',
      'ok: the canary strategy is ranked first',
      'ok: the agent playbook for task deploy-payments agrees',
      'Done:',
    ]);
    // The printed playbook after the votes: the canary strategy first, with its score.
    const after = out.stdout.slice(out.stdout.indexOf('5. The playbook'));
    assert.match(
      after,
      /#1 similarity [\d.]+ effectiveness {2}0\.67 {2}To deploy the payments service safely/,
    );
  });

  it('untrusted-tool-output: tool output stays private and untrusted; the planted instruction is flagged and kept out of global', async () => {
    const out = await run('untrusted-tool-output');
    assertLines(out, [
      'ok: benign tool output is stored agent-private, labelled untrusted, with no flags',
      'ok: the planted instruction is flagged as injection',
      'ok: publishing the web page: 403 SCOPE_FORBIDDEN',
      'refused: 422 SECURITY_REJECTED: injection:',
      'ok: labelling its output internal: 403 TRUST_FORBIDDEN',
      'ok: the email is on the list',
      'Done:',
    ]);
  });

  it('runs again on the same Engram (a namespace per run), and leaves no usable key behind', async () => {
    assertLines(await run('feedback-loop'), ['ok: the canary strategy is ranked first', 'Done:']);
    const keys = await t.admin.get<{ keys: { name: string; revoked_at?: string }[] }>('/admin/keys');
    assert.equal(keys.status, 200, keys.text);
    const created = keys.body.keys.filter((k) => k.name.startsWith('example: '));
    assert.ok(created.length >= 2, 'this run created two keys');
    assert.deepEqual(
      created.filter((k) => k.revoked_at === undefined).map((k) => k.name),
      [],
      'every key an example created is revoked',
    );
  });

  it('exits 2 with a hint when ENGRAM_API_KEY is missing', async () => {
    const out = await node(commands.get('handoff')!, { ENGRAM_URL: t.baseUrl, ENGRAM_API_KEY: '' });
    assert.equal(out.code, 2);
    assert.match(out.stderr, /Set ENGRAM_API_KEY to the system key/);
  });
});

describe('examples/: an example fails when Engram does not do what it shows', function () {
  this.timeout(120_000);
  let t: TestEngram;

  // Injection screening switched off: the planted instruction is stored without a flag.
  before(async () => {
    t = await startTestEngram('pglite', { CONTENT_POLICY_INJECTION: 'allow' });
  });
  after(() => t?.stop());

  it('untrusted-tool-output exits non-zero, naming the expectation that did not hold', async () => {
    const args = readmeCommands().get('untrusted-tool-output');
    assert.ok(args);
    const out = await node(args, { ENGRAM_URL: t.baseUrl, ENGRAM_API_KEY: t.adminKey });
    assert.notEqual(out.code, 0, out.stdout);
    assert.match(out.stderr, /expected: the planted instruction is flagged as injection/);
    assert.ok(!out.stdout.includes('Done:'));
  });
});
