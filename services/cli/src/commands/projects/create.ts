/**
 * engram projects create <project_id>: a new project. Only the instance administrator (a system key
 * of project `default`) may; `engram keys create --project <id> --trust system` then gives it an
 * administrator of its own.
 */
import { expectPositionals, HELP, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit } from '../../output.ts';
import { AdminServiceClient } from '@engram/proto/engram/admin/v1/admin';

export const USAGE = `usage: engram projects create <project_id> [--name N] [--json]
  Creates a project; \`engram keys create --project <project_id> --trust system\` then gives it an
  administrator. Only the instance administrator may.
options:
  --name N   display name (default: the id)
  --json     the project as JSON
${CONNECTION_USAGE}`;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: { ...CONNECTION_OPTIONS, ...JSON_OPTION, ...HELP, name: { type: 'string' } },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  const projectId = positionals[0]!;
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(AdminServiceClient);
    const p = await conn.unary(client.createProject.bind(client), {
      project_id: projectId,
      name: values.name ?? projectId,
    });
    emit(values.json, p, `created project ${p.project_id}`);
  });
}
