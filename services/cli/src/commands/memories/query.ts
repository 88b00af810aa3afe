/**
 * engram memories query <text>: the memories closest in meaning (Query), or with --hybrid the fusion
 * of meaning and words (HybridQuery); every result verified on read.
 */
import { expectPositionals, HELP, intOption, JSON_OPTION, listOption, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit, oneLine } from '../../output.ts';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import { RetrievalServiceClient } from '@engram/proto/engram/retrieval/v1/retrieval';

export const USAGE = `usage: engram memories query <text> [--agent A] [--top-k N] [--hybrid] [--namespace N] [--types T,U] [--json]
  Prints the best matches, one a line: score, id, type, author and the start of the content.
options:
  --agent A      the reading agent (a bound key: its own agent, the default)
  --top-k N      how many (1 to 100, default 10)
  --hybrid       vector and full-text search fused (reciprocal rank fusion)
  --namespace N  only this namespace
  --types T,U    only these memory types
  --json         {"memories": [...]} with every field
${CONNECTION_USAGE}`;

function resultLine(m: Memory): string {
  const score = m.relevance_score ?? m.score;
  return [
    score === undefined ? '-' : score.toFixed(3),
    m.id,
    m.memory_type,
    m.agent_id,
    oneLine(m.content, 100),
  ].join('  ');
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
      'top-k': { type: 'string' },
      hybrid: { type: 'boolean' },
      namespace: { type: 'string' },
      types: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  const topK = intOption(values['top-k'], 'top-k', 10, 1, 100, USAGE);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(RetrievalServiceClient);
    const rpc = values.hybrid ? client.hybridQuery.bind(client) : client.query.bind(client);
    const res = await conn.unary(rpc, {
      query: positionals[0]!,
      agent_id: values.agent ?? '',
      namespace: values.namespace,
      memory_types: listOption(values.types),
      scopes: [],
      agent_ids: [],
      top_k: topK,
    });
    emit(
      values.json,
      { memories: res.memories },
      res.memories.length === 0 ? '(no memories match)' : res.memories.map(resultLine).join('\n'),
    );
  });
}
