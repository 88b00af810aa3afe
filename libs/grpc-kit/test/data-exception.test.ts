import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { createLogger } from '@engram/logger';
import { AdminServiceClient, AdminServiceService } from '@engram/proto/engram/admin/v1/admin';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';
import {
  bindService,
  createClient,
  createGrpcServer,
  decodeStatusDetails,
  listen,
  shutdownServer,
  unary,
} from '../src/index.ts';

/** Each case binds one request value where the database refuses it with the SQLSTATE named. */
const CASES: { name: string; sql: string; value: string; sqlstate: string }[] = [
  {
    name: 'a 36-dash uuid',
    sql: 'select 1 from probe where id = ?',
    value: '-'.repeat(36),
    sqlstate: '22P02',
  },
  {
    name: 'February 30',
    sql: 'select 1 from probe where at >= ?',
    value: '2024-02-30T00:00:00Z',
    sqlstate: '22008',
  },
  {
    name: 'an integer beyond int4',
    sql: 'select 1 from probe where n = ?',
    value: '99999999999',
    sqlstate: '22003',
  },
  {
    name: 'a NUL byte',
    sql: 'select 1 from probe where s = ?',
    value: 'secret\u0000tail',
    sqlstate: '22021',
  },
];

/**
 * Defence in depth: a database data exception (SQLSTATE class 22) that escapes validation reaches the
 * client as INVALID_ARGUMENT VALIDATION_FAILED without the database's words, and is logged at warn with
 * the SQLSTATE only. A real gRPC server, real queries on both engines.
 */
for (const engine of ENGINES) {
  describe(`database data exceptions become INVALID_ARGUMENT (${engine})`, function () {
    this.timeout(60_000);
    let database: EngineDatabase;
    let address = '';
    const logged: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger({ service: 'test', level: 'info', destination });
    let server: ReturnType<typeof createGrpcServer>;

    before(async () => {
      database = await openEngineDatabase(engine);
      const knex = database.db.knex;
      await knex.raw('create table probe (id uuid, at timestamptz, n int, s text unique)');
      await knex('probe').insert({ s: 'taken' });
      server = createGrpcServer([
        {
          definition: AdminServiceService,
          implementation: bindService(
            AdminServiceService,
            {
              // project_id carries the value, cursor says which statement runs.
              async listKeys(req) {
                if (req.cursor === 'duplicate') await knex('probe').insert({ s: req.project_id });
                else await knex.raw(CASES[Number(req.cursor)]!.sql, [req.project_id]);
                return { keys: [], next_cursor: '' };
              },
            },
            { logger, authenticate: () => Promise.resolve('caller') },
          ),
        },
      ]);
      address = `127.0.0.1:${await listen(server, '127.0.0.1', 0)}`;
    });
    after(async () => {
      await shutdownServer(server, 1000);
      await database?.close();
    });

    const call = (value: string, cursor: string) => {
      const client = createClient(AdminServiceClient, address);
      return unary(client.listKeys.bind(client), { project_id: value, cursor }, new Metadata()).finally(() =>
        client.close(),
      );
    };

    CASES.forEach((c, i) => {
      it(`${c.name} (${c.sqlstate}) is INVALID_ARGUMENT VALIDATION_FAILED, logged at warn with the SQLSTATE only`, async () => {
        logged.length = 0;
        const err = await call(c.value, String(i)).then(
          () => assert.fail('the database accepted the value'),
          (e: ServiceError) => e,
        );
        assert.equal(err.code, Status.INVALID_ARGUMENT, err.details);
        assert.equal(decodeStatusDetails(err).reason, 'VALIDATION_FAILED');
        assert.equal(err.details, 'a request value is malformed or out of range');
        const line = logged
          .map((l) => JSON.parse(l) as { level: string; sqlstate?: string; code?: string })
          .find((l) => l.sqlstate !== undefined);
        assert.equal(line?.sqlstate, c.sqlstate, logged.join(''));
        assert.equal(line?.level, 'warn');
        assert.equal(line?.code, 'INVALID_ARGUMENT');
        const text = logged.join('');
        assert.ok(!text.includes(c.value.replace('\u0000', '\\u0000')), `the value is not logged: ${text}`);
        assert.ok(!text.includes('probe'), 'neither is the statement');
      });
    });

    it('another class is not mapped: a unique violation (23505) stays INTERNAL', async () => {
      const err = await call('taken', 'duplicate').then(
        () => assert.fail('the duplicate was inserted'),
        (e: ServiceError) => e,
      );
      assert.equal(err.code, Status.INTERNAL);
      assert.equal(err.details, 'internal error');
    });
  });
}
