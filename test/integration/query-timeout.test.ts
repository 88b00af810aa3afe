import assert from 'node:assert/strict';
import { openDatabase, type Database } from '@engram/db';
import { PrivatePostgres } from '@engram/testing';

/**
 * A statement that times out on the client (PostgreSQL not answering: a hung host, a partition, here
 * a frozen server) must not leave its connection behind in the pool. node-postgres gives up on the
 * statement but keeps the connection, and the transaction's ROLLBACK, timed out in turn, is never
 * sent: the next statement on that connection would run inside the abandoned transaction, be answered
 * as done, and vanish when the connection closes. An acknowledged write lost.
 */
describe('integration: a PostgreSQL statement timed out on the client', function () {
  this.timeout(60_000);
  let server: PrivatePostgres;
  let db: Database | undefined;

  before(async () => {
    server = await PrivatePostgres.create();
    await server.query('create table t (id int primary key)');
  });

  afterEach(async () => {
    server.thaw();
    await db?.close();
    db = undefined;
  });

  after(async () => {
    await server?.remove();
  });

  async function committed(id: number): Promise<boolean> {
    const rows = await server.query<{ n: string }>('select count(*) as n from t where id = $1', [id]);
    return Number(rows[0]!.n) === 1;
  }

  it('does not leave its transaction open under the next write on the same connection', async () => {
    db = await openDatabase({ url: server.url(), poolMax: 1, timeouts: { queryMs: 400 } });
    await db.knex('t').insert({ id: 1 }); // the pool's one connection is made
    const abandoned = db.knex.transaction(async (trx) => {
      await trx('t').insert({ id: 2 });
      server.freeze();
      await trx('t').insert({ id: 3 });
    });
    await assert.rejects(abandoned, /read timeout|terminated/i);
    server.thaw();
    // The next write, acknowledged: it must be committed, whichever connection it ran on.
    await db.knex('t').insert({ id: 4 });
    assert.equal(await committed(4), true, 'an acknowledged write is committed');
    assert.equal(await committed(2), false, 'the timed-out transaction is not committed');
  });
});
