import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './child-process.ts';
import { compiledEntry, NODE_ENV } from './compiled-entry.ts';
import { freePorts, portOpen } from './free-port.ts';
import { ApiClient } from './http-client.ts';
import { TestNatsServer } from './nats-server.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SERVICES = [
  'memory-store',
  'ingest-security',
  'retrieval-ranking',
  'ace-feedback',
  'security-admin',
] as const;

export interface DistributedEngram {
  readonly baseUrl: string;
  readonly admin: ApiClient;
  readonly adminKey: string;
  readonly integrityKey: string;
  readonly processes: Map<string, ManagedProcess>;
  readonly addresses: Record<string, string>;
  /** Where each process serves its Prometheus metrics (the gateway at baseUrl). */
  readonly metricsUrls: Record<string, string>;
  logs(): string;
  stop(): Promise<void>;
}

async function waitReady(baseUrl: string, procs: ManagedProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = procs.find((p) => !p.running);
    if (dead) throw new Error(`${dead.name} exited during startup\n${dead.tail()}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not ready after ${timeoutMs} ms\n${procs.map((p) => p.tail()).join('\n')}`);
}

/**
 * The suite as six separate processes (five gRPC services and the gateway), each configured only by
 * environment, against a PostgreSQL database and a NATS server: what `scripts/run-distributed` runs.
 * Without `natsUrl` the suite gets a nats-server of its own (stopped with it): processes sharing a
 * database refuse to start without NATS.
 */
export async function startDistributed(opts: {
  databaseUrl: string;
  natsUrl?: string;
  natsStream?: string;
  env?: Record<string, string>;
}): Promise<DistributedEngram> {
  const ownNats = opts.natsUrl === undefined ? await TestNatsServer.start() : undefined;
  const adminKey = 'egk_e2e_' + randomBytes(24).toString('base64url');
  const integrityKey = randomBytes(32).toString('base64url');
  const addresses: Record<string, string> = {};
  // Distinct ports: a gRPC and a metrics port for each service, and the gateway's.
  const ports = await freePorts(2 * SERVICES.length + 1);
  const metricsPorts: Record<string, number> = {};
  SERVICES.forEach((s, i) => {
    addresses[s] = `127.0.0.1:${ports[2 * i]}`;
    metricsPorts[s] = ports[2 * i + 1]!;
  });
  const httpPort = ports[2 * SERVICES.length]!;
  const common: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...NODE_ENV,
    DATABASE_URL: opts.databaseUrl,
    NATS_URL: opts.natsUrl ?? ownNats?.url,
    NATS_STREAM: opts.natsStream,
    SERVICE_API_KEY: adminKey,
    SERVICE_INTEGRITY_KEY: integrityKey,
    ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    EMBEDDING_PROVIDER: 'hash',
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'warn',
    DATABASE_POOL_MAX: '4',
    INGEST_SECURITY_ADDR: addresses['ingest-security'],
    MEMORY_STORE_ADDR: addresses['memory-store'],
    RETRIEVAL_RANKING_ADDR: addresses['retrieval-ranking'],
    ACE_FEEDBACK_ADDR: addresses['ace-feedback'],
    SECURITY_ADMIN_ADDR: addresses['security-admin'],
    ENGRAM_HTTP_PORT: String(httpPort),
    ...opts.env,
  };
  const processes = new Map<string, ManagedProcess>();
  const spawnService = (name: string, port: string) =>
    ManagedProcess.spawn(
      name,
      process.execPath,
      compiledEntry(`services/${name}`, 'main'),
      {
        ...common,
        ENGRAM_GRPC_PORT: port,
        ...(metricsPorts[name] ? { ENGRAM_METRICS_PORT: String(metricsPorts[name]) } : {}),
      },
      ROOT,
    );
  // memory-store first: it owns the schema the others read.
  const store = spawnService('memory-store', addresses['memory-store']!.split(':')[1]!);
  processes.set('memory-store', store);
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const stopAll = async () => {
    await Promise.all([...processes.values()].reverse().map((p) => p.stop()));
    await ownNats?.stop();
  };
  try {
    await waitForPort(store, Number(addresses['memory-store']!.split(':')[1]), 60_000);
    for (const s of SERVICES.slice(1)) processes.set(s, spawnService(s, addresses[s]!.split(':')[1]!));
    processes.set('gateway', spawnService('gateway', '0'));
    await waitReady(baseUrl, [...processes.values()], 60_000);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    baseUrl,
    admin: new ApiClient(baseUrl, adminKey),
    adminKey,
    integrityKey,
    processes,
    addresses,
    metricsUrls: {
      ...Object.fromEntries(SERVICES.map((s) => [s, `http://127.0.0.1:${metricsPorts[s]}/metrics`])),
      gateway: `${baseUrl}/metrics`,
    },
    logs: () => [...processes.values()].map((p) => p.tail()).join('\n'),
    stop: stopAll,
  };
}

async function waitForPort(p: ManagedProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portOpen(port)) return;
    if (!p.running) throw new Error(`${p.name} exited during startup\n${p.tail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} did not start in ${timeoutMs} ms\n${p.tail()}`);
}
