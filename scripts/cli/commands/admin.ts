/**
 * engram keys / engram projects: key and project administration.
 *   engram keys create --trust internal [--project P] [--name N] [--agent A] [--expires RFC3339]
 *   engram keys list [--project P]
 *   engram keys revoke KEY_ID
 *   engram projects create PROJECT_ID [--name N]
 * It calls the AdminService of memory-store over gRPC with a system key: ENGRAM_API_KEY (or --key;
 * SERVICE_API_KEY is used when neither is set) at ENGRAM_GRPC_ADDR (or --addr; default
 * 127.0.0.1:50051, the embedded process; in distributed mode, memory-store's address).
 */
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { parseArgs } from 'node:util';
import { createClient, decodeStatusDetails, unary } from '@engram/grpc-kit';
import { fail } from '../fail.ts';
import { AdminServiceClient, type ApiKey } from '@engram/proto/engram/admin/v1/admin';

export const USAGE = `usage:
  engram keys create --trust <untrusted|internal|privileged|system> [--project P] [--name N] [--agent A] [--expires RFC3339]
  engram keys list [--project P]
  engram keys revoke <key_id>
  engram projects create <project_id> [--name N]
options: --addr host:port (ENGRAM_GRPC_ADDR, default 127.0.0.1:50051)  --key <system key> (ENGRAM_API_KEY)  --json`;

function describeError(err: unknown): string {
  const e = err as ServiceError;
  if (typeof e.code === 'number' && e.metadata) {
    const d = decodeStatusDetails(e);
    const fields = d.fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ');
    return `${e.details}${d.reason ? ` (${d.reason})` : ''}${fields ? ` - ${fields}` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function keyLine(k: ApiKey): string {
  const state = k.revoked_at
    ? `revoked ${k.revoked_at}`
    : k.expires_at
      ? `expires ${k.expires_at}`
      : 'active';
  return [k.key_id, k.project_id, k.trust_level, k.bound_agent_id ?? '-', k.prefix + '…', k.name, state].join(
    '\t',
  );
}

/** engram keys … / engram projects … */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      addr: { type: 'string' },
      key: { type: 'string' },
      project: { type: 'string' },
      name: { type: 'string' },
      trust: { type: 'string' },
      agent: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command, arg] = positionals;
  if (values.help || !group) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const apiKey = values.key ?? process.env.ENGRAM_API_KEY ?? process.env.SERVICE_API_KEY;
  if (!apiKey) fail('a system API key is required: set ENGRAM_API_KEY or pass --key');
  const client = createClient(
    AdminServiceClient,
    values.addr ?? process.env.ENGRAM_GRPC_ADDR ?? '127.0.0.1:50051',
  );
  const md = new Metadata();
  md.set('authorization', `Bearer ${apiKey}`);
  md.set('x-engram-channel', 'cli');
  const print = (obj: unknown, text: string) =>
    process.stdout.write((values.json ? JSON.stringify(obj) : text) + '\n');
  try {
    if (group === 'keys' && command === 'create') {
      if (!values.trust) fail('--trust is required');
      const res = await unary(
        client.createKey.bind(client),
        {
          project_id: values.project ?? '',
          name: values.name ?? 'cli',
          trust_level: values.trust,
          bound_agent_id: values.agent,
          expires_at: values.expires,
        },
        md,
      );
      print(
        res,
        `key_id:  ${res.key_id}\napi_key: ${res.api_key}\n(the key is shown only this once; store it now)`,
      );
    } else if (group === 'keys' && command === 'list') {
      const keys: ApiKey[] = [];
      let cursor = '';
      do {
        const page = await unary(
          client.listKeys.bind(client),
          { project_id: values.project ?? '', cursor },
          md,
        );
        keys.push(...page.keys);
        cursor = page.next_cursor;
      } while (cursor !== '');
      print(
        { keys },
        ['key_id\tproject\ttrust\tagent\tprefix\tname\tstate', ...keys.map(keyLine)].join('\n'),
      );
    } else if (group === 'keys' && command === 'revoke') {
      if (!arg) fail('usage: engram keys revoke <key_id>');
      const k = await unary(client.revokeKey.bind(client), { key_id: arg }, md);
      print(k, `revoked ${k.key_id} at ${k.revoked_at ?? ''}`);
    } else if (group === 'projects' && command === 'create') {
      if (!arg) fail('usage: engram projects create <project_id>');
      const p = await unary(
        client.createProject.bind(client),
        { project_id: arg, name: values.name ?? arg },
        md,
      );
      print(p, `created project ${p.project_id}`);
    } else {
      fail(`unknown command\n${USAGE}`);
    }
  } catch (err) {
    fail(describeError(err));
  } finally {
    client.close();
  }
}
