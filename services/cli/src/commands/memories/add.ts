/**
 * engram memories add: one memory through the write pipeline (screened, signed, audited), as
 * POST /memories/add. The content is the argument, or stdin with `-` (one trailing newline dropped,
 * so `echo text | engram memories add -` stores "text").
 */
import { expectPositionals, HELP, JSON_OPTION, listOption, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { usageError } from '../../exit.ts';
import { emit } from '../../output.ts';
import { IngestServiceClient } from '@engram/proto/engram/ingest/v1/ingest';

export const USAGE = `usage: engram memories add <content | -> [--agent A] [--type T] [--scope S] [--metadata JSON]
                           [--namespace N] [--trust T] [--shared-with A,B] [--session ID] [--entity ID] [--json]
  Adds one memory; \`-\` reads the content from stdin. Prints its id (an existing memory's id when the
  same content was already there: "already present").
options:
  --agent A          the author (a bound key: its own agent, the default)
  --type T           standard (default), strategy, reflection, progress, feature, episodic, semantic,
                     procedural or control
  --scope S          agent-private, agent-shared or global (default: by type)
  --metadata JSON    a JSON object
  --namespace N      default: default
  --trust T          content trust label (capped by the key's trust)
  --shared-with A,B  agents an agent-shared memory is shared with
  --session ID       session of an episodic memory (required for episodic)
  --entity ID        entity of a semantic memory
  --json             the write result as JSON
${CONNECTION_USAGE}`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function metadataOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return usageError('--metadata must be a JSON object', USAGE);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    usageError('--metadata must be a JSON object', USAGE);
  return value as Record<string, unknown>;
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...JSON_OPTION,
      ...HELP,
      agent: { type: 'string' },
      type: { type: 'string' },
      scope: { type: 'string' },
      metadata: { type: 'string' },
      namespace: { type: 'string' },
      trust: { type: 'string' },
      'shared-with': { type: 'string' },
      session: { type: 'string' },
      entity: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  const metadata = metadataOf(values.metadata);
  const content = positionals[0] === '-' ? await readStdin() : positionals[0]!;
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(IngestServiceClient);
    const res = await conn.unary(client.addMemory.bind(client), {
      content,
      agent_id: values.agent ?? '',
      memory_type: values.type,
      scope: values.scope,
      shared_with: listOption(values['shared-with']),
      trust_level: values.trust,
      namespace: values.namespace,
      metadata,
      session_id: values.session,
      entity_id: values.entity,
      steps: [],
      trigger_conditions: [],
    });
    const flags = res.content_flags.length > 0 ? `; flagged: ${res.content_flags.join(', ')}` : '';
    emit(
      values.json,
      res,
      `${res.deduplicated ? 'already present' : 'added'} ${res.id} (${res.memory_type}, ${res.scope}, ${res.namespace})${flags}`,
    );
  });
}
