import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { NotFoundError, UnauthenticatedError } from '@engram/errors';
import { createLogger } from '@engram/logger';
import { AdminServiceClient, AdminServiceService } from '@engram/proto/engram/admin/v1/admin';
import { HealthClient, HealthCheckResponse_ServingStatus } from '@engram/proto/grpc/health/v1/health';
import {
  bindService,
  createClient,
  createGrpcServer,
  HealthStatus,
  listen,
  shutdownServer,
  unary,
} from '../src/index.ts';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('a real gRPC server built with grpc-kit (port 0)', () => {
  const health = new HealthStatus(['engram.admin.v1.AdminService']);
  const server = createGrpcServer([
    {
      definition: AdminServiceService,
      implementation: bindService(
        AdminServiceService,
        {
          createProject: (req, ctx) =>
            req.project_id === 'missing'
              ? Promise.reject(new NotFoundError('no such project'))
              : Promise.resolve({
                  project_id: req.project_id,
                  name: `${String(ctx.principal)}:${ctx.requestId}`,
                  created_at: '',
                }),
        },
        {
          logger,
          authenticate: (md) => {
            if (md.get('authorization')[0] !== 'Bearer good-key')
              return Promise.reject(new UnauthenticatedError());
            return Promise.resolve('alice');
          },
        },
      ),
    },
    { definition: HealthStatus.definition, implementation: health.implementation() },
  ]);
  let address = '';

  before(async () => {
    address = `127.0.0.1:${await listen(server, '127.0.0.1', 0)}`;
  });
  after(() => shutdownServer(server, 1000));

  const md = (key?: string, requestId?: string) => {
    const m = new Metadata();
    if (key) m.set('authorization', `Bearer ${key}`);
    if (requestId) m.set('x-request-id', requestId);
    return m;
  };

  it('authenticates every call, then runs the handler with the principal and request id', async () => {
    const client = createClient(AdminServiceClient, address);
    const res = await unary(
      client.createProject.bind(client),
      { project_id: 'p', name: '' },
      md('good-key', 'req-1'),
    );
    assert.equal(res.name, 'alice:req-1');
    await assert.rejects(
      unary(client.createProject.bind(client), { project_id: 'p', name: '' }, md('bad')),
      (e: ServiceError) => e.code === Status.UNAUTHENTICATED,
    );
    await assert.rejects(
      unary(client.createProject.bind(client), { project_id: 'missing', name: '' }, md('good-key')),
      (e: ServiceError) => e.code === Status.NOT_FOUND && e.details === 'no such project',
    );
    await assert.rejects(
      unary(client.listKeys.bind(client), { project_id: '', cursor: '' }, md('good-key')),
      (e: ServiceError) => e.code === Status.UNIMPLEMENTED,
    );
    client.close();
  });

  it('reports health from the live status map, per service and for the whole server', async () => {
    const client = createClient(HealthClient, address);
    const check = (service: string) => unary(client.check.bind(client), { service }, new Metadata());
    assert.equal(Number((await check('')).status), Number(HealthCheckResponse_ServingStatus.NOT_SERVING));
    health.setAll(true);
    assert.equal(Number((await check('')).status), Number(HealthCheckResponse_ServingStatus.SERVING));
    health.set('engram.admin.v1.AdminService', false);
    assert.equal(Number((await check('')).status), Number(HealthCheckResponse_ServingStatus.NOT_SERVING));
    await assert.rejects(check('no.such.Service'), (e: ServiceError) => e.code === Status.NOT_FOUND);
    client.close();
  });
});
