/**
 * engram audit flagged: memories whose content was flagged at write time (PII, injection, the LLM
 * classifier), newest first, each with whether its signature still verifies. The list shows labels
 * only; `engram memories get <id>` shows a memory's content.
 */
import { expectPositionals, HELP, intOption, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit } from '../../output.ts';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import { SecurityAdminServiceClient } from '@engram/proto/engram/security/v1/security';

export const USAGE = `usage: engram audit flagged [--limit N] [--namespace N] [--json]
  Lists flagged memories of the project, newest first: id, time, agent, type, flags and integrity
  status. Needs a privileged or system key.
options:
  --limit N       at most N memories (1 to 10000, default 50)
  --namespace N   only this namespace
  --json          {"memories": [...]} with every field, content included
${CONNECTION_USAGE}`;

const PAGE = 200;

function flaggedLine(m: Memory): string {
  return [
    m.id,
    m.created_at,
    m.agent_id,
    m.memory_type,
    m.content_flags.join(','),
    m.integrity_status ?? '-',
  ].join('\t');
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...JSON_OPTION,
      ...HELP,
      limit: { type: 'string' },
      namespace: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 0);
  const limit = intOption(values.limit, 'limit', 50, 1, 10_000, USAGE);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(SecurityAdminServiceClient);
    const memories: Memory[] = [];
    let cursor = '';
    do {
      const page = await conn.unary(client.listFlagged.bind(client), {
        cursor,
        limit: Math.min(PAGE, limit - memories.length),
        namespace: values.namespace,
      });
      memories.push(...page.memories);
      cursor = page.next_cursor;
    } while (cursor !== '' && memories.length < limit);
    emit(
      values.json,
      { memories },
      memories.length === 0
        ? '(no flagged memories)'
        : ['id\tcreated_at\tagent\ttype\tflags\tintegrity', ...memories.map(flaggedLine)].join('\n'),
    );
  });
}
