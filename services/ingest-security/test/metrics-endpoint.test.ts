import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata } from '@grpc/grpc-js';
import pg from 'pg';
import { loadEngramConfig } from '@engram/config';
import { createClient, unary } from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import { configuredPeers, serveServices, ServiceProcess } from '@engram/platform';
import { IngestServiceClient } from '@engram/proto/engram/ingest/v1/ingest';
import { freePort, testServerUrl } from '@engram/testing';
import { composeIngestSecurity } from '../src/index.ts';

/** A GitHub token shape, built at runtime so no secret-looking literal sits in the repository. */
const GITHUB_TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36);
const SCAN = 'grpc_type="unary",grpc_service="engram.ingest.v1.IngestService",grpc_method="ScanContent"';

function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A plain database (the events outbox needs no pgvector) of its own, dropped afterwards. */
async function plainDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `engram_metrics_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: testServerUrl() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

for (const engine of ['pglite', 'postgres'] as const) {
  describe(`a gRPC service process serves its own /metrics on ENGRAM_METRICS_PORT (${engine})`, function () {
    this.timeout(60_000);
    const apiKey = 'egk_test_' + randomBytes(24).toString('base64url');
    let dataDir: string;
    let database: { url: string; drop: () => Promise<void> } | undefined;
    let proc: ServiceProcess;
    let grpcPort: number;
    let metricsPort: number;
    const metricsUrl = (path = '/metrics') => `http://127.0.0.1:${metricsPort}${path}`;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'engram-metrics-'));
      database = engine === 'postgres' ? await plainDatabase() : undefined;
      const config = loadEngramConfig({
        ENGRAM_DATA_DIR: dataDir,
        ENGRAM_GRPC_PORT: '0',
        ENGRAM_METRICS_PORT: String(await freePort()),
        SERVICE_API_KEY: apiKey,
        SERVICE_INTEGRITY_KEY: randomBytes(32).toString('base64url'),
        ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
        DATABASE_POOL_MAX: '3',
        // Alone on its fresh database, without NATS: its relay may publish to its own bus.
        ...(database ? { DATABASE_URL: database.url, EVENTS_DELIVERY: 'in-process' } : {}),
      });
      proc = await ServiceProcess.open({
        config,
        service: 'ingest-security',
        logger: createLogger({ service: 'test', level: 'silent' }),
      });
      const served = await serveServices(proc, await composeIngestSecurity(proc, configuredPeers(config)));
      grpcPort = served.port;
      assert.ok(served.metricsPort !== undefined);
      metricsPort = served.metricsPort;
    });
    after(async () => {
      await proc?.runtime.shutdown();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('counts the RPC and exports rate-limit and pool metrics, and no outbox of its own', async () => {
      const client = createClient(IngestServiceClient, `127.0.0.1:${grpcPort}`);
      const md = new Metadata();
      md.set('authorization', `Bearer ${apiKey}`);
      try {
        const res = await unary(
          client.scanContent.bind(client),
          { content: `token ${GITHUB_TOKEN}`, metadata: undefined },
          md,
        );
        assert.equal(res.action, 'reject');
      } finally {
        client.close();
      }
      const res = await fetch(metricsUrl());
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      assert.equal(valueOf(text, `grpc_server_handled_total{${SCAN},grpc_code="OK"}`), 1);
      assert.equal(valueOf(text, `grpc_server_handling_seconds_count{${SCAN}}`), 1);
      // A scan is a preview, not a write: no verdict is counted for it.
      assert.doesNotMatch(text, /^engram_screening_verdicts_total\{/m);
      // ingest-security records no events itself (memory-store commits each verdict with its
      // memory): its process runs no outbox relay, so it samples no outbox and publishes nothing.
      assert.equal(valueOf(text, 'engram_outbox_pending_events'), undefined);
      assert.equal(valueOf(text, 'engram_outbox_oldest_event_age_seconds'), undefined);
      assert.equal(valueOf(text, 'engram_events_published_total'), undefined);
      assert.match(text, /# TYPE engram_rate_limited_requests_total counter/);
      assert.equal(
        valueOf(text, 'engram_db_pool_max_connections{pool="primary"}'),
        engine === 'pglite' ? 1 : 3,
      );
      assert.ok(valueOf(text, 'process_resident_memory_bytes') !== undefined);
      assert.doesNotMatch(text, /http_requests_total/, 'the gateway series are not part of a service');
    });

    it('answers nothing but GET /metrics', async () => {
      assert.equal((await fetch(metricsUrl('/'))).status, 404);
      assert.equal((await fetch(metricsUrl('/healthz'))).status, 404);
      assert.equal((await fetch(metricsUrl(), { method: 'POST' })).status, 405);
      assert.equal((await fetch(metricsUrl('/metrics?x=1'))).status, 200);
    });

    it('stops listening on shutdown', async () => {
      await proc.runtime.shutdown();
      await assert.rejects(fetch(metricsUrl()), 'the metrics port is closed');
    });
  });
}
