import { randomBytes } from 'node:crypto';
import {
  compiledEntry,
  freePort,
  ManagedProcess,
  NODE_ENV,
  portOpen,
  REPO_ROOT,
  SERVICES,
} from '@engram/testing';

/** One process of the suite: its name ("ingest-security#2"), gRPC port and metrics port. */
export interface SuiteProcess {
  readonly name: string;
  readonly service: string;
  readonly grpcPort: number;
  readonly metricsPort: number;
  readonly proc: ManagedProcess;
}

export interface ReplicatedSuite {
  readonly baseUrl: string;
  readonly adminKey: string;
  readonly processes: readonly SuiteProcess[];
  /** The gateway's process (its log says why an upstream call failed). */
  readonly gateway: ManagedProcess;
  replicas(service: string): SuiteProcess[];
  /** Sum of grpc_server_handled_total of one process for a method (all codes). */
  handled(p: SuiteProcess, method: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The six-process suite with several replicas of some services, each replica on its own gRPC and
 * metrics port. The gateway (and every peer) reaches a replicated service through one multi-address
 * target, "ipv4:127.0.0.1:<port1>,127.0.0.1:<port2>", which grpc-js balances round robin: what a DNS
 * name with several addresses (a headless Kubernetes Service) gives in production.
 */
export async function startReplicated(opts: {
  databaseUrl: string;
  natsUrl: string;
  natsStream: string;
  replicas: Readonly<Record<string, number>>;
  env?: Record<string, string>;
}): Promise<ReplicatedSuite> {
  const adminKey = 'egk_rel_' + randomBytes(24).toString('base64url');
  const plan: { name: string; service: string; grpcPort: number; metricsPort: number }[] = [];
  for (const service of SERVICES) {
    const n = opts.replicas[service] ?? 1;
    for (let i = 1; i <= n; i++)
      plan.push({
        name: n > 1 ? `${service}#${i}` : service,
        service,
        grpcPort: await freePort(),
        metricsPort: await freePort(),
      });
  }
  const target = (service: string) => {
    const ports = plan.filter((p) => p.service === service).map((p) => `127.0.0.1:${p.grpcPort}`);
    return ports.length > 1 ? `ipv4:${ports.join(',')}` : ports[0]!;
  };
  const httpPort = await freePort();
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...NODE_ENV,
    DATABASE_URL: opts.databaseUrl,
    NATS_URL: opts.natsUrl,
    NATS_STREAM: opts.natsStream,
    SERVICE_API_KEY: adminKey,
    SERVICE_INTEGRITY_KEY: randomBytes(32).toString('base64url'),
    ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    EMBEDDING_PROVIDER: 'hash',
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'warn',
    DATABASE_POOL_MAX: '4',
    INGEST_SECURITY_ADDR: target('ingest-security'),
    MEMORY_STORE_ADDR: target('memory-store'),
    RETRIEVAL_RANKING_ADDR: target('retrieval-ranking'),
    ACE_FEEDBACK_ADDR: target('ace-feedback'),
    SECURITY_ADMIN_ADDR: target('security-admin'),
    ENGRAM_HTTP_PORT: String(httpPort),
    ...opts.env,
  };
  const spawn = (name: string, extra: Record<string, string>) =>
    ManagedProcess.spawn(
      name,
      process.execPath,
      compiledEntry(`services/${name.split('#')[0]}`, 'main'),
      { ...env, ...extra },
      REPO_ROOT,
    );
  const processes: SuiteProcess[] = [];
  let gateway: ManagedProcess | undefined;
  const stop = async () => {
    await gateway?.stop();
    await Promise.all(processes.map((p) => p.proc.stop()));
  };
  try {
    // memory-store first: it owns the schema the others read.
    for (const p of [...plan].sort(
      (a, b) => Number(b.service === 'memory-store') - Number(a.service === 'memory-store'),
    )) {
      const proc = spawn(p.name, {
        ENGRAM_GRPC_PORT: String(p.grpcPort),
        ENGRAM_METRICS_PORT: String(p.metricsPort),
      });
      processes.push({ ...p, proc });
      if (p.service === 'memory-store') await waitFor(() => portOpen(p.grpcPort), proc, 60_000);
    }
    for (const p of processes) await waitFor(() => portOpen(p.grpcPort), p.proc, 60_000);
    gateway = spawn('gateway', { ENGRAM_GRPC_PORT: '0' });
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    await waitFor(
      async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200,
      gateway,
      60_000,
    );
    const all = processes;
    return {
      baseUrl,
      adminKey,
      processes: all,
      gateway,
      replicas: (service) => all.filter((p) => p.service === service),
      async handled(p, method) {
        const text = await (await fetch(`http://127.0.0.1:${p.metricsPort}/metrics`)).text();
        let sum = 0;
        for (const line of text.split('\n'))
          if (line.startsWith('grpc_server_handled_total{') && line.includes(`grpc_method="${method}"`))
            sum += Number(line.slice(line.lastIndexOf(' ') + 1));
        return sum;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitFor(
  ready: () => Promise<boolean>,
  proc: ManagedProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready()) return;
    if (!proc.running) throw new Error(`${proc.name} exited during startup\n${proc.tail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${proc.name} not ready in ${timeoutMs} ms\n${proc.tail()}`);
}
