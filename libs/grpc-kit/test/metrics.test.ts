import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { NotFoundError, UnauthenticatedError } from '@engram/errors';
import { createLogger } from '@engram/logger';
import { AdminServiceClient, AdminServiceService } from '@engram/proto/engram/admin/v1/admin';
import { engramMetrics } from '@engram/telemetry';
import { Registry } from 'prom-client';
import { bindService, createClient, createGrpcServer, listen, shutdownServer, unary } from '../src/index.ts';

const logger = createLogger({ service: 'test', level: 'silent' });

function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('grpc-kit metrics', () => {
  it('bindService counts and times every call by service, method and code (auth failures too)', async () => {
    const metrics = engramMetrics(new Registry());
    const server = createGrpcServer([
      {
        definition: AdminServiceService,
        implementation: bindService(
          AdminServiceService,
          {
            createProject: (req) =>
              req.project_id === 'missing'
                ? Promise.reject(new NotFoundError('no such project'))
                : Promise.resolve({ project_id: req.project_id, name: '', created_at: '' }),
          },
          {
            logger,
            metrics,
            authenticate: (md) =>
              md.get('authorization').length === 0
                ? Promise.reject(new UnauthenticatedError())
                : Promise.resolve('alice'),
          },
        ),
      },
    ]);
    const address = `127.0.0.1:${await listen(server, '127.0.0.1', 0)}`;
    const client = createClient(AdminServiceClient, address);
    try {
      const md = new Metadata();
      md.set('authorization', 'Bearer k');
      const create = (id: string, m: Metadata) =>
        unary(client.createProject.bind(client), { project_id: id, name: '' }, m);
      await create('p', md);
      await create('q', md);
      await assert.rejects(create('missing', md), (e: ServiceError) => e.code === Status.NOT_FOUND);
      await assert.rejects(
        create('p', new Metadata()),
        (e: ServiceError) => e.code === Status.UNAUTHENTICATED,
      );
      const text = await metrics.scrape();
      const l = 'grpc_type="unary",grpc_service="engram.admin.v1.AdminService",grpc_method="CreateProject"';
      assert.equal(sample(text, `grpc_server_started_total{${l}}`), 4);
      assert.equal(sample(text, `grpc_server_handled_total{${l},grpc_code="OK"}`), 2);
      assert.equal(sample(text, `grpc_server_handled_total{${l},grpc_code="NotFound"}`), 1);
      assert.equal(sample(text, `grpc_server_handled_total{${l},grpc_code="Unauthenticated"}`), 1);
      assert.equal(sample(text, `grpc_server_handling_seconds_count{${l}}`), 4);
    } finally {
      client.close();
      await shutdownServer(server, 1000);
    }
  });
});
