/** engram keys create: a new API key; the raw key is printed this once (only its hash is stored). */
import { expectPositionals, HELP, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { usageError } from '../../exit.ts';
import { emit } from '../../output.ts';
import { AdminServiceClient } from '@engram/proto/engram/admin/v1/admin';

export const USAGE = `usage: engram keys create --trust <untrusted|internal|privileged|system> [--project P] [--name N]
                         [--agent A | --acts-for A ... | --any-agent] [--expires RFC3339] [--json]
  Creates an API key and prints it once (store it now: only its hash is kept).
  Whom it acts for: an untrusted key must be bound (--agent); an internal key is bound, lists its
  agents (--acts-for, repeatable) or says --any-agent; privileged and system keys act for any
  agent unless bound.
options:
  --trust LEVEL      untrusted, internal, privileged or system (required)
  --project P        the key's project (default: the calling key's)
  --name N           a label (default: cli)
  --agent A          bind the key to one agent: it can act only as A
  --acts-for A       an unbound internal key acts for A (repeat for more agents)
  --any-agent        an unbound internal key acts for any agent of its project
  --expires TIME     RFC 3339 expiry
  --json             key_id and api_key as JSON
${CONNECTION_USAGE}`;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...JSON_OPTION,
      ...HELP,
      trust: { type: 'string' },
      project: { type: 'string' },
      name: { type: 'string' },
      agent: { type: 'string' },
      'acts-for': { type: 'string', multiple: true },
      'any-agent': { type: 'boolean' },
      expires: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 0);
  if (!values.trust) usageError('--trust is required', USAGE);
  const trust = values.trust;
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(AdminServiceClient);
    const res = await conn.unary(client.createKey.bind(client), {
      project_id: values.project ?? '',
      name: values.name ?? 'cli',
      trust_level: trust,
      bound_agent_id: values.agent,
      agent_ids: values['acts-for'] ?? [],
      any_agent: values['any-agent'] === true,
      expires_at: values.expires,
    });
    emit(
      values.json,
      res,
      `key_id:  ${res.key_id}\napi_key: ${res.api_key}\n(the key is shown only this once; store it now)`,
    );
  });
}
