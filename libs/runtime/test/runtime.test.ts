import assert from 'node:assert/strict';
import { createLogger } from '@engram/logger';
import { Runtime } from '../src/index.ts';

const silent = createLogger({ service: 'runtime-test', level: 'silent' });

describe('Runtime: one ordered, bounded shutdown per process', () => {
  it('runs phase by phase, and within a phase in the order the steps were added', async () => {
    const runtime = new Runtime(silent, 1_000);
    const ran: string[] = [];
    const step = (name: string) => () => void ran.push(name);
    runtime.onShutdown('database', step('database'), 'storage');
    runtime.onShutdown('grpc server', step('grpc server'), 'server');
    runtime.onShutdown('tracing', step('tracing'), 'telemetry');
    runtime.onShutdown('relay', step('relay'));
    // Added last (the all-in-one's gateway is built after the gRPC server), still stops first.
    runtime.onShutdown('gateway', step('gateway'), 'ingress');
    runtime.onShutdown('metrics endpoint', step('metrics endpoint'), 'server');
    runtime.onShutdown('peer client', step('peer client'), 'clients');
    await runtime.shutdown();
    const order = [
      'gateway',
      'grpc server',
      'metrics endpoint',
      'peer client',
      'relay',
      'database',
      'tracing',
    ];
    assert.deepEqual(ran, order);
    assert.deepEqual(
      runtime.plan().map((s) => s.name),
      order,
    );
  });

  it('bounds each step by the deadline, and a step that fails or hangs does not stop the rest', async () => {
    const runtime = new Runtime(silent, 50);
    const ran: string[] = [];
    runtime.onShutdown('hangs', () => new Promise<void>(() => {}), 'server');
    runtime.onShutdown(
      'throws',
      () => {
        throw new Error('boom');
      },
      'clients',
    );
    runtime.onShutdown('rejects', () => Promise.reject(new Error('no')), 'resources');
    runtime.onShutdown('database', () => void ran.push('database'), 'storage');
    const started = Date.now();
    await runtime.shutdown();
    assert.deepEqual(ran, ['database']);
    assert.ok(Date.now() - started < 1_000, 'the hanging step was cut at its deadline');
  });

  it('shuts down once: a second call (a second signal) waits for the same run', async () => {
    const runtime = new Runtime(silent, 1_000);
    let runs = 0;
    runtime.onShutdown('count', async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 20));
    });
    await Promise.all([runtime.shutdown(), runtime.shutdown()]);
    await runtime.shutdown();
    assert.equal(runs, 1);
  });
});
