import { ManagedProcess, REPO_ROOT } from '@engram/testing';

/**
 * The OpenAI-compatible embedding stand-in (standin-server.ts) as a process of its own, so its CPU is
 * counted apart from Engram's: what a hosted embedder spends elsewhere.
 */
export async function startStandIn(): Promise<{ proc: ManagedProcess; baseUrl: string }> {
  const proc = ManagedProcess.spawn(
    'embedding-stand-in',
    process.execPath,
    ['--import', 'tsx', '--conditions=engram-source', 'scripts/bench/vectors/standin-server.ts'],
    { PATH: process.env.PATH, HOME: process.env.HOME },
    REPO_ROOT,
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.child.once('exit', () => reject(new Error(`the stand-in exited\n${proc.tail()}`)));
  });
  return { proc, baseUrl };
}
