import { z } from 'zod';
import {
  agentId,
  memoryId,
  memoryType,
  metadata,
  namespace,
  scope,
  stringList,
  topK,
  trustLevel,
} from '../fields.ts';
import { memoryLine, memoryList, writeLine } from '../format.ts';
import { toolResult } from '../results.ts';
import { defineTool, type EngramTool } from '../tool.ts';

/** load_context's budget when the model names none: a modest slice of any current context window. */
export const DEFAULT_TOKEN_BUDGET = 4000;

const remember = defineTool(
  'remember',
  {
    title: 'Remember',
    description:
      'Store a memory in Engram, the shared memory of your multi-agent project, so that you or other agents can recall it later. ' +
      'Store durable knowledge: facts, decisions, lessons, procedures, conventions; not chit-chat. One memory per idea. ' +
      'Every write is screened: content holding secrets (API keys, passwords) is refused, personal data is flagged, ' +
      'and prompt-injection attempts are flagged or refused. Storing the same content again returns the existing memory.',
    inputSchema: {
      content: z
        .string()
        .min(1)
        .describe('The memory itself: a self-contained statement someone can act on later.'),
      agent_id: agentId('The author: the agent storing the memory'),
      memory_type: memoryType.optional(),
      scope: scope.optional(),
      shared_with: stringList('With scope agent-shared: the agent ids that may read it.'),
      trust_level: trustLevel.optional(),
      namespace,
      metadata,
      entity_id: z.string().min(1).optional().describe('For semantic memories: the entity it is about.'),
      session_id: z.string().min(1).optional().describe('For episodic memories: the session it happened in.'),
      steps: stringList('For procedural memories: the steps, in order.'),
      trigger_conditions: stringList('For procedural memories: when to apply it.'),
      error_pattern: z
        .string()
        .min(1)
        .optional()
        .describe('For control and reflection memories: the error or situation it guards against.'),
      severity: z
        .string()
        .min(1)
        .optional()
        .describe('For control memories: e.g. low, medium, high, critical.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const written = await engram.addMemory(args, { signal });
    return toolResult(writeLine('stored', written), written);
  },
);

const recall = defineTool(
  'recall',
  {
    title: 'Recall',
    description:
      'Search Engram for memories relevant to a question or task. Hybrid search: it matches by meaning and by exact words ' +
      '(error codes, file names, identifiers), best first. Returns only memories you may read, each verified against its signature. ' +
      'Use it before starting a task, and whenever you meet an error or a decision someone may have met before.',
    inputSchema: {
      query: z
        .string()
        .min(1)
        .describe('What you are looking for, in natural language; include exact codes or names.'),
      agent_id: agentId('The reading agent'),
      top_k: topK('memories'),
      memory_types: z.array(memoryType).optional().describe('Only these memory types.'),
      scopes: z.array(scope).optional().describe('Only memories in these scopes.'),
      agent_ids: stringList('Only memories written by these agents.'),
      namespace,
      min_score: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('Leave out memories less similar than this (0-1).'),
      session_id: z.string().min(1).optional().describe('Only memories of this session.'),
      entity_id: z.string().min(1).optional().describe('Only memories about this entity.'),
      as_of: z
        .string()
        .min(1)
        .optional()
        .describe(
          'When the question is asked, RFC 3339 (e.g. 2025-11-20T10:00:00Z): dates in it such as "last May" or "two weeks ago" are read against it. Default: now.',
        ),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const found = await engram.hybridQuery(args, { signal });
    return toolResult(memoryList(`Memories for "${args.query}"`, found.memories), found);
  },
);

const getMemory = defineTool(
  'get_memory',
  {
    title: 'Get memory',
    description:
      'Read one memory by its id, verified against its signature. A memory you may not read answers NOT_FOUND, exactly like one that does not exist.',
    inputSchema: { id: memoryId, agent_id: agentId('The reading agent') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const memory = await engram.getMemory(args, { signal });
    return toolResult(memoryLine(memory), memory);
  },
);

const loadContext = defineTool(
  'load_context',
  {
    title: 'Load context',
    description:
      'Load the memories most relevant to a task that fit in a token budget, ready to put into your context. ' +
      'Use it at the start of a task instead of several recalls.',
    inputSchema: {
      query: z.string().min(1).describe('The task or question the context is for.'),
      agent_id: agentId('The reading agent'),
      token_budget: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .default(DEFAULT_TOKEN_BUDGET)
        .describe(`At most this many tokens of memories (default ${DEFAULT_TOKEN_BUDGET}).`),
      namespace,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const ctx = await engram.loadContext(args, { signal });
    const header =
      `Context for ${ctx.agent_id} (${ctx.tokens_used} of ${ctx.token_budget} tokens, ` +
      `integrity ${ctx.integrity_all_verified ? 'verified' : 'NOT verified for every item'})`;
    return toolResult(memoryList(header, ctx.items), ctx);
  },
);

const handoff = defineTool(
  'handoff',
  {
    title: 'Hand off',
    description:
      'Prepare a handoff from one agent to another: the source agent’s memories relevant to the task that the target agent may read. ' +
      'Use it when passing a task on; give the result to the target agent. With a key bound to an agent, that agent must be the source or the target.',
    inputSchema: {
      source_agent_id: z.string().min(1).describe('The agent handing the task off.'),
      target_agent_id: z.string().min(1).describe('The agent taking the task over.'),
      task_context: z.string().min(1).describe('What the task is; selects the relevant memories.'),
      max_memories: z.number().int().min(1).max(100).optional().describe('At most this many memories.'),
      namespace,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const h = await engram.handoff(args, { signal });
    const header = `Handoff from ${h.source_agent_id} to ${h.target_agent_id} for "${h.task_context}"`;
    return toolResult(memoryList(header, h.memories), h);
  },
);

/** remember, recall, get_memory, load_context, handoff: writing and reading memories. */
export const MEMORY_TOOLS: readonly EngramTool[] = [remember, recall, getMemory, loadContext, handoff];
