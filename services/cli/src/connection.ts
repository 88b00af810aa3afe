/**
 * The one gRPC connection setup of every verb that talks to a running Engram (memories, audit, keys,
 * projects): the same two settings everywhere, so an operator configures the CLI once.
 *   --addr host:port  (ENGRAM_GRPC_ADDR, default 127.0.0.1:50051: the embedded process, which hosts
 *                      every service; distributed, the process of the verb's service)
 *   --key KEY         (ENGRAM_API_KEY, else SERVICE_API_KEY)
 * It also turns gRPC failures into one-line messages and exit statuses: UNAVAILABLE, DEADLINE_EXCEEDED
 * and UNAUTHENTICATED are 3 (cannot reach Engram, or the key is not accepted), the rest 1.
 * @engram/grpc-kit (with the tracing it brings, about 0.3 s to load) is loaded when a verb connects,
 * so that `--help` and usage errors answer at once.
 */
import { Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import type * as GrpcKitModule from '@engram/grpc-kit';
import type { createClient, unary } from '@engram/grpc-kit';
import { CliError, EXIT, type ExitStatus, usageError } from './exit.ts';

export const DEFAULT_GRPC_ADDR = '127.0.0.1:50051';

/** The options of every gRPC verb (spread into its parseArgs options). */
export const CONNECTION_OPTIONS = {
  addr: { type: 'string' },
  key: { type: 'string' },
} as const;

/** The lines every gRPC verb's usage ends with. */
export const CONNECTION_USAGE = `connection:
  --addr host:port  Engram's gRPC address (ENGRAM_GRPC_ADDR; default ${DEFAULT_GRPC_ADDR})
  --key KEY         API key (ENGRAM_API_KEY, else SERVICE_API_KEY)`;

export interface ConnectionSettings {
  readonly addr?: string | undefined;
  readonly key?: string | undefined;
}

type Unary<Req, Res> = Parameters<typeof unary<Req, Res>>[0];
type GrpcKit = typeof GrpcKitModule;

/** An address and a key; clients made through it are closed together by close(). */
export class Connection {
  private readonly clients: Client[] = [];

  constructor(
    readonly address: string,
    private readonly apiKey: string,
    private readonly kit: GrpcKit,
  ) {}

  /** A client of one service at the address. */
  client<C extends Client>(ctor: Parameters<typeof createClient<C>>[0]): C {
    const c = this.kit.createClient(ctor, this.address);
    this.clients.push(c);
    return c;
  }

  /** The metadata of every call: the key and the channel (audit events say `cli`). */
  metadata(): Metadata {
    const md = new Metadata();
    md.set('authorization', `Bearer ${this.apiKey}`);
    md.set('x-engram-channel', 'cli');
    return md;
  }

  /** One unary call with this connection's metadata; a gRPC failure becomes a CliError. */
  async unary<Req, Res>(fn: Unary<Req, Res>, req: Req, timeoutMs?: number): Promise<Res> {
    try {
      return await this.kit.unary(fn, req, this.metadata(), timeoutMs);
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** A CliError for a failed call: a one-line description and the exit status of its code. */
  failure(err: unknown): Error {
    if (!this.kit.isServiceError(err)) return err instanceof Error ? err : new Error(String(err));
    return new CliError(describeGrpcError(this.kit, err, this.address), grpcExitStatus(err.code));
  }

  /** The domain error a google.rpc.Status stands for (a batch item's refusal). */
  errorOf(item: Parameters<GrpcKit['engramErrorOf']>[0]): ReturnType<GrpcKit['engramErrorOf']> {
    return this.kit.engramErrorOf(item);
  }

  close(): void {
    for (const c of this.clients) c.close();
    this.clients.length = 0;
  }
}

/** The connection of a verb's settings; a missing key is a usage error (exit 2). */
export async function connect(settings: ConnectionSettings, usage: string): Promise<Connection> {
  const key = settings.key ?? process.env.ENGRAM_API_KEY ?? process.env.SERVICE_API_KEY;
  if (!key) usageError('an API key is required: set ENGRAM_API_KEY or pass --key', usage);
  const address = settings.addr ?? process.env.ENGRAM_GRPC_ADDR ?? DEFAULT_GRPC_ADDR;
  return new Connection(address, key, await import('@engram/grpc-kit'));
}

/** Runs fn with a connection and closes it however fn ends. */
export async function withConnection<T>(
  settings: ConnectionSettings,
  usage: string,
  fn: (conn: Connection) => Promise<T>,
): Promise<T> {
  const conn = await connect(settings, usage);
  try {
    return await fn(conn);
  } finally {
    conn.close();
  }
}

/** 3 when Engram cannot be reached or the key is not accepted, 1 when Engram refused the call. */
export function grpcExitStatus(code: status): ExitStatus {
  return code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED || code === status.UNAUTHENTICATED
    ? EXIT.unreachable
    : EXIT.failed;
}

/**
 * One line: the status message, the machine-readable reason and the field violations, e.g.
 * `request failed validation (VALIDATION_FAILED) - content: is required`.
 */
function describeGrpcError(kit: GrpcKit, err: ServiceError, address: string): string {
  const d = kit.decodeStatusDetails(err);
  // UNAVAILABLE without a reason: nothing answered (with one, Engram answered that a dependency is down).
  if (err.code === status.UNAVAILABLE && d.reason === undefined)
    return `cannot reach Engram at ${address}: ${oneLine(err.details)}`;
  if (err.code === status.DEADLINE_EXCEEDED && d.reason === undefined)
    return `no answer from Engram at ${address} in time: ${oneLine(err.details)}`;
  const fields = d.fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ');
  const prefix = err.code === status.UNAUTHENTICATED ? 'authentication failed: ' : '';
  return `${prefix}${oneLine(err.details)}${d.reason ? ` (${d.reason})` : ''}${fields ? ` - ${fields}` : ''}`;
}

const oneLine = (s: string) =>
  s
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\s*Resolution note:\s*$/, '')
    .trim();
