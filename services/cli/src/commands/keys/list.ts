/** engram keys list: every key of a project, page by page (ids, labels and prefixes, never keys). */
import { expectPositionals, HELP, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit } from '../../output.ts';
import { AdminServiceClient, type ApiKey } from '@engram/proto/engram/admin/v1/admin';

export const USAGE = `usage: engram keys list [--project P] [--json]
  Lists the keys of a project: id, project, trust, agents (bound agent, for:listed, any, or -), prefix,
  name and state.
options:
  --project P   the project (default: the calling key's)
  --json        {"keys": [...]}
${CONNECTION_USAGE}`;

function keyLine(k: ApiKey): string {
  const state = k.revoked_at
    ? `revoked ${k.revoked_at}`
    : k.expires_at
      ? `expires ${k.expires_at}`
      : 'active';
  return [k.key_id, k.project_id, k.trust_level, agentsOf(k), k.prefix + '…', k.name, state].join('\t');
}

/** Whom the key acts for: its bound agent, `for:a,b` (listed), `any`, or `-` (privileged/system: any). */
function agentsOf(k: ApiKey): string {
  if (k.bound_agent_id !== undefined) return k.bound_agent_id;
  if (k.any_agent) return 'any';
  return k.agent_ids.length > 0 ? `for:${k.agent_ids.join(',')}` : '-';
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: { ...CONNECTION_OPTIONS, ...JSON_OPTION, ...HELP, project: { type: 'string' } },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 0);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(AdminServiceClient);
    const keys: ApiKey[] = [];
    let cursor = '';
    do {
      const page = await conn.unary(client.listKeys.bind(client), {
        project_id: values.project ?? '',
        cursor,
      });
      keys.push(...page.keys);
      cursor = page.next_cursor;
    } while (cursor !== '');
    emit(
      values.json,
      { keys },
      ['key_id\tproject\ttrust\tagent\tprefix\tname\tstate', ...keys.map(keyLine)].join('\n'),
    );
  });
}
