/**
 * The embedded database's thread (see pglite-thread.ts): PGlite with pgvector, opened on the data
 * directory it is given, answering the main thread's requests one message each. PGlite runs its
 * statements one at a time anyway (one session); here it does so beside the main thread instead of
 * on it, so the gateway, the screening and the gRPC handlers keep a core while a statement runs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { serializeError, type ThreadReply, type ThreadRequest } from './pglite-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('pglite-worker.ts runs as a worker thread (pglite-thread.ts starts it)');
const { dataDir } = workerData as { dataDir: string };

async function main(): Promise<void> {
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir, extensions: { vector } });
  } catch (err) {
    port!.postMessage({ id: 0, error: serializeError(err) } satisfies ThreadReply);
    return;
  }
  port!.on('message', (req: ThreadRequest) => {
    void answer(db, req).then((reply) => {
      port!.postMessage(reply);
      if (req.op === 'close') port!.close();
    });
  });
  port!.postMessage({ id: 0, result: null } satisfies ThreadReply);
}

async function answer(db: PGlite, req: ThreadRequest): Promise<ThreadReply> {
  try {
    switch (req.op) {
      case 'query': {
        const r = await db.query(req.sql, req.params, req.options);
        return { id: req.id, result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows } };
      }
      case 'exec':
        return { id: req.id, result: await db.exec(req.sql) };
      case 'close':
        if (!db.closed) await db.close();
        return { id: req.id, result: null };
    }
  } catch (err) {
    return { id: req.id, error: serializeError(err) };
  }
}

void main();
