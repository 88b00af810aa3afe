/**
 * Running the compiled `engram` as a user does (a child process of the build, `make build` first),
 * against an Engram running in the test process.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { compiledEntry, REPO_ROOT, type ApiClient } from '@engram/testing';
import { type TestEngram } from '@engram/all-in-one/testing';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running `engram`: its output so far, and its end. */
export interface RunningCli {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly done: Promise<CliResult>;
}

/** The environment of a CLI run: nothing from ours (no stray ENGRAM_API_KEY), plus what is given. */
function cliEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env };
}

/** The settings that point the CLI at t with a key (the bootstrap system key unless told). */
export function connection(t: TestEngram, key = t.adminKey): Record<string, string> {
  return { ENGRAM_GRPC_ADDR: t.grpcAddress, ENGRAM_API_KEY: key };
}

export function startCli(args: string[], env: Record<string, string> = {}, input?: string): RunningCli {
  const child = spawn(process.execPath, [...compiledEntry('services/cli', 'engram'), ...args], {
    cwd: REPO_ROOT,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdin.end(input);
  const done = new Promise<CliResult>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `engram …` to the end. */
export function engram(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return startCli(args, env, input).done;
}

/** Runs `engram …` and checks its exit status, showing its output when it differs. */
export async function engramOk(
  args: string[],
  env: Record<string, string>,
  expected = 0,
  input?: string,
): Promise<CliResult> {
  const r = await engram(args, env, input);
  assert.equal(
    r.code,
    expected,
    `engram ${args.join(' ')}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
  );
  return r;
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** n memories of one agent through POST /memories/add_batch; their ids in order. */
export async function seed(client: ApiClient, agent: string, n: number, text: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 100) {
    const items = Array.from({ length: Math.min(100, n - start) }, (_, i) => ({
      content: `${text} number ${start + i}`,
      agent_id: agent,
    }));
    const res = await client.post<{ results: { id?: string; error?: unknown }[] }>('/memories/add_batch', {
      items,
    });
    assert.equal(res.status, 200, res.text);
    for (const r of res.body.results) {
      assert.ok(r.id && !r.error, JSON.stringify(r));
      ids.push(r.id);
    }
  }
  return ids;
}

/** The NDJSON rows of a text (blank lines dropped). */
export function ndjson<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Settings every CLI suite uses: no rate limit gets in the way of fixtures. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
  RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
};

/** Whether a text holds what a terminal interprets: a carriage return or an escape sequence. */
export function hasControlCharacters(text: string): boolean {
  return text.includes('\r') || text.includes('\u001b');
}
