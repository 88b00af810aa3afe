/** engram memories get <id>: one memory, verified on read (a memory you may not read is "not found"). */
import { expectPositionals, HELP, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit, memoryText } from '../../output.ts';
import { MemoryStoreServiceClient } from '@engram/proto/engram/memory/v1/memory_store';

export const USAGE = `usage: engram memories get <id> [--agent A] [--json]
  Prints one memory: its label, then its content.
options:
  --agent A   the reading agent (a bound key: its own agent, the default)
  --json      the memory as JSON
${CONNECTION_USAGE}`;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: { ...CONNECTION_OPTIONS, ...JSON_OPTION, ...HELP, agent: { type: 'string' } },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(MemoryStoreServiceClient);
    const m = await conn.unary(client.getMemory.bind(client), {
      id: positionals[0]!,
      agent_id: values.agent ?? '',
    });
    emit(values.json, m, memoryText(m));
  });
}
