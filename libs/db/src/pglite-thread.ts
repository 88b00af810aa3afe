import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { deserializeError, type ThreadReply, type ThreadRequest } from './pglite-protocol.ts';

/** What knex-pglite and openDatabase call on a PGlite instance, and what PGliteThread provides. */
export interface PGliteLike {
  readonly closed: boolean;
  readonly waitReady: Promise<void>;
  query(sql: string, params?: unknown[], options?: Record<string, unknown>): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** The compiled worker (dist/) when it is at least as new as the sources it was built from. */
function compiledWorker(): URL | undefined {
  const compiled = new URL('../dist/pglite-worker.js', import.meta.url);
  const sources = ['./pglite-worker.ts', './pglite-protocol.ts'].map((f) => new URL(f, import.meta.url));
  try {
    const built = statSync(compiled).mtimeMs;
    return sources.every((f) => statSync(f).mtimeMs <= built) ? compiled : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The worker beside this module: pglite-worker.js when compiled. From the sources (tests, scripts
 * under tsx) a worker's entry cannot be TypeScript on Node 20 (tsx's --import hooks do not reach a
 * worker's entry point): the compiled worker is used when `make build` made it from the current
 * sources (what ships, and a second less per open than tsx), else a one-line bootstrap loads the .ts
 * file through tsx's tsImport.
 */
function startWorker(dataDir: string): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: { dataDir } });
  // From the sources the process runs with tsx's flags, which the compiled worker does not need.
  const compiled = compiledWorker();
  if (compiled) return new Worker(compiled, { execArgv: [], workerData: { dataDir } });
  // tsImport loads the .ts file with tsx's hooks scoped to it (resolved next to this module).
  const source = new URL('./pglite-worker.ts', import.meta.url);
  const api = new URL('./index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')))
    .href;
  const bootstrap = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(import.meta.url)}));`;
  return new Worker(bootstrap, { eval: true, execArgv: [], workerData: { dataDir } });
}

/**
 * PGlite on a thread of its own (docs/decisions.md, PGlite off the main thread). In the embedded
 * process PGlite took over half of the main thread's time (its WASM runs where it is called), so the
 * services waited on every statement; here a statement runs on the other core while the main thread
 * goes on. Each call is one message each way (rows cross by structured clone: Date, Uint8Array and
 * JSON values arrive as PGlite made them; errors keep their SQLSTATE code, detail and constraint).
 * The worker holds the process open only while a call is pending, as a socket would.
 */
export class PGliteThread implements PGliteLike {
  readonly waitReady: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exited: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(private readonly worker: Worker) {
    this.waitReady = new Promise<void>((resolve, reject) =>
      this.pending.set(0, { resolve: () => resolve(), reject }),
    );
    worker.on('message', (reply: ThreadReply) => this.settle(reply));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the embedded database thread exited (code ${code})`)));
  }

  /** Starts the thread and opens PGlite in dataDir there; rejects with PGlite's error when it cannot. */
  static async open(dataDir: string): Promise<PGliteThread> {
    const thread = new PGliteThread(startWorker(dataDir));
    try {
      await thread.waitReady;
    } catch (err) {
      await thread.worker.terminate();
      throw err;
    }
    thread.worker.unref();
    return thread;
  }

  get closed(): boolean {
    return this.exited !== undefined || this.closing !== undefined;
  }

  query(sql: string, params?: unknown[], options?: Record<string, unknown>): Promise<unknown> {
    return this.call({ id: this.nextId++, op: 'query', sql, params, options });
  }

  exec(sql: string): Promise<unknown> {
    return this.call({ id: this.nextId++, op: 'exec', sql });
  }

  /** Closes PGlite (its files are complete on disk) and ends the thread; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.exited === undefined) {
        await this.send({ id: this.nextId++, op: 'close' }).catch(() => undefined);
        await this.worker.terminate();
      }
    })();
    return this.closing;
  }

  private call(req: ThreadRequest): Promise<unknown> {
    if (this.closing) return Promise.reject(new Error('the embedded database is closed'));
    return this.send(req);
  }

  private send(req: ThreadRequest): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(req.id, { resolve, reject });
      this.worker.postMessage(req);
    });
  }

  private settle(reply: ThreadReply): void {
    const p = this.pending.get(reply.id);
    if (p === undefined) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error === undefined) p.resolve(reply.result);
    else p.reject(deserializeError(reply.error));
  }

  private fail(err: Error): void {
    this.exited ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
