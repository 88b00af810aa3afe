import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { enforceRateLimit, MemoryRateLimiter } from '@engram/access';
import { UnauthenticatedError } from '@engram/errors';
import { bindService, createGrpcServer, listen, shutdownServer } from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import type { Server } from '@grpc/grpc-js';
import { allAt, startGateway, type RunningGateway } from './fixtures/harness.ts';

/**
 * The gateway's 429: a real grpc-kit service whose admission uses the real in-process limiter (agent
 * budget 2, project budget 3), behind the real gateway. What a client sees when it runs out.
 */
describe('gateway rate-limit answers (real bindService limiter behind the real gateway)', () => {
  let server: Server;
  let gw: RunningGateway;
  const limiter = new MemoryRateLimiter({ projectPerWindow: 3, agentPerWindow: 2, windowMs: 60_000 });

  before(async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const impl = bindService(
      RetrievalServiceService,
      { query: () => Promise.resolve({ memories: [], next_cursor: '' }) },
      {
        logger,
        authenticate: async (md, _method, request) => {
          if (md.get('authorization')[0] !== 'Bearer key-of-project-p') throw new UnauthenticatedError();
          const agent = (request as { agent_id?: string }).agent_id || 'key:k';
          await enforceRateLimit(limiter, { projectId: 'p', agent });
          return { projectId: 'p' };
        },
      },
    );
    server = createGrpcServer([{ definition: RetrievalServiceService, implementation: impl }]);
    const port = await listen(server, '127.0.0.1', 0);
    gw = await startGateway({ upstreams: allAt(`127.0.0.1:${port}`) });
    assert.ok((gw.gateway.server.address() as AddressInfo).port > 0);
  });
  after(async () => {
    await gw.stop();
    await shutdownServer(server, 1000);
    await limiter.close();
  });

  const query = (agent: string) =>
    fetch(`${gw.url}/memories/query`, {
      method: 'POST',
      headers: { authorization: 'Bearer key-of-project-p', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', agent_id: agent }),
    });

  it('answers 429 RATE_LIMITED with Retry-After and RateLimit-* once an agent spent its budget', async () => {
    assert.equal((await query('noisy')).status, 200);
    assert.equal((await query('noisy')).status, 200);
    const res = await query('noisy');
    assert.equal(res.status, 429);
    const body = (await res.json()) as { error: { reason: string; code: string } };
    assert.equal(body.error.reason, 'RATE_LIMITED');
    assert.equal(body.error.code, 'RESOURCE_EXHAUSTED');
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.equal(res.headers.get('ratelimit-limit'), '2');
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
    assert.equal(res.headers.get('ratelimit-reset'), String(retryAfter));
    assert.equal(res.headers.get('ratelimit-policy'), '2;w=60');
  });

  it('the noisy agent did not spend the project budget: another agent still gets the rest of it', async () => {
    assert.equal((await query('quiet')).status, 200);
    const res = await query('quiet');
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('ratelimit-limit'), '3', 'now the project budget (3) is spent');
  });

  it('a call without a key is 401, not counted and not limited', async () => {
    const res = await fetch(`${gw.url}/memories/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', agent_id: 'quiet' }),
    });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('ratelimit-limit'), null);
  });
});
