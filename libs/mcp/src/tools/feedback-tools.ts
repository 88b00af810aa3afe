import { z } from 'zod';
import { EngramError } from '@engram/client';
import { agentId, memoryId, memoryType, namespace, scope, stringList, topK } from '../fields.ts';
import { memoryList, runLine, writeLine } from '../format.ts';
import { engramToolError, toolResult } from '../results.ts';
import { defineTool, type EngramTool } from '../tool.ts';

const vote = defineTool(
  'vote',
  {
    title: 'Vote on a memory',
    description:
      'Say whether a memory helped or harmed your task. Votes make helpful memories rank higher in playbooks and flag harmful ones. ' +
      'One vote per memory, voter and task_id: voting again replaces your earlier vote.',
    inputSchema: {
      memory_id: memoryId,
      vote: z
        .enum(['helpful', 'harmful'])
        .describe('helpful: it made the task go better; harmful: it was wrong or misleading.'),
      voter_agent_id: agentId('The voting agent'),
      task_id: z.string().min(1).optional().describe('The task the memory was used in (one vote per task).'),
      context: z.string().optional().describe('Why, in a sentence (at most 2000 characters).'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const v = await engram.vote(args, { signal });
    const text =
      `Recorded ${args.vote} vote on ${v.memory_id}: helpful=${v.helpful} harmful=${v.harmful} ` +
      `effectiveness=${Math.round(v.effectiveness_score * 1000) / 1000}`;
    return toolResult(text, v);
  },
);

const reflect = defineTool(
  'reflect',
  {
    title: 'Reflect',
    description:
      'Record a lesson learned from a failure or a surprise, so that no agent repeats the mistake: what went wrong, the pattern to ' +
      'recognise it by, and what to do instead. Reflections appear in playbooks. Screened like every write.',
    inputSchema: {
      content: z
        .string()
        .min(1)
        .describe('The lesson, self-contained: what happened and what to do instead.'),
      agent_id: agentId('The reflecting agent'),
      error_pattern: z
        .string()
        .min(1)
        .optional()
        .describe('The error message or situation that signals this mistake (e.g. "ECONNRESET on deploy").'),
      correct_approach: z.string().min(1).optional().describe('What to do instead.'),
      applicable_contexts: stringList('Where the lesson applies (e.g. ["deploy", "payments-service"]).'),
      source_trajectory_id: z
        .string()
        .min(1)
        .optional()
        .describe('The run or task id the lesson comes from.'),
      scope: scope.optional(),
      namespace,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const written = await engram.addReflection(args, { signal });
    return toolResult(writeLine('reflection stored', written), written);
  },
);

const startRun = defineTool(
  'start_run',
  {
    title: 'Start a run',
    description:
      'Start tracking a task run: which memories you used for it. When the task ends, call complete_run with the same run_id: ' +
      'success votes helpful on every memory used, failure votes harmful and records a reflection from the evaluation.',
    inputSchema: {
      run_id: z
        .string()
        .min(1)
        .describe('A new unique id for this run (e.g. a UUID or "deploy-2025-06-01-1").'),
      task_type: z
        .string()
        .min(1)
        .describe('The kind of task (e.g. "deploy", "code-review"); agent playbooks are per task type.'),
      agent_id: agentId('The agent doing the task'),
      memory_ids_used: z
        .array(memoryId)
        .optional()
        .describe('Ids of the memories you are relying on (from recall, load_context or playbook).'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const run = await engram.startRun(args, { signal });
    return toolResult(`Run started: ${runLine(run)}`, run);
  },
);

const completeRun = defineTool(
  'complete_run',
  {
    title: 'Complete a run',
    description:
      'Finish a run started with start_run, once. success=true votes helpful on every memory the run used; success=false votes ' +
      'harmful and stores a reflection from evaluation.error and evaluation.error_pattern, so the failure is not repeated.',
    inputSchema: {
      run_id: z.string().min(1).describe('The run_id given to start_run.'),
      success: z.boolean().describe('Whether the task succeeded.'),
      evaluation: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          'How it went, as a JSON object. On failure give "error" (what went wrong, becomes the reflection) and ' +
            '"error_pattern" (how to recognise it); any other keys are kept with the run.',
        ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const run = await engram.completeRun(args, { signal });
    return toolResult(`Run completed: ${runLine(run)}`, run);
  },
);

const playbook = defineTool(
  'playbook',
  {
    title: 'Playbook',
    description:
      'Get the playbook for a task: strategies, reflections, procedures and control rules relevant to it, ordered by relevance ' +
      'and by how well they worked (votes). With task_type, it also weighs what helped or failed in completed runs of that task type. ' +
      'Use it before a task to follow what worked and avoid known failures.',
    inputSchema: {
      query: z.string().min(1).describe('The task at hand, in natural language.'),
      agent_id: agentId('The reading agent'),
      task_type: z
        .string()
        .min(1)
        .optional()
        .describe('The kind of task (as given to start_run): ranks by the record of runs of this type.'),
      top_k: topK('entries'),
      min_effectiveness: z
        .number()
        .min(-1)
        .max(1)
        .optional()
        .describe(
          'Only entries whose effectiveness (-1 to 1, from votes) is above this. Not with task_type.',
        ),
      memory_types: z
        .array(memoryType)
        .optional()
        .describe(
          'Draw from these types instead of strategy, reflection, procedural and control. Not with task_type.',
        ),
      namespace,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (engram, args, signal) => {
    const { task_type, min_effectiveness, memory_types, ...common } = args;
    if (task_type !== undefined && (min_effectiveness !== undefined || memory_types !== undefined)) {
      return engramToolError(
        new EngramError({
          code: 'INVALID_ARGUMENT',
          status: 400,
          reason: 'VALIDATION_FAILED',
          message: 'min_effectiveness and memory_types apply only without task_type',
          fieldViolations: [
            {
              field: min_effectiveness !== undefined ? 'min_effectiveness' : 'memory_types',
              description: 'not allowed together with task_type',
              reason: 'INVALID_VALUE',
            },
          ],
        }),
      );
    }
    const book =
      task_type === undefined
        ? await engram.playbook({ ...common, min_effectiveness, memory_types }, { signal })
        : await engram.agentPlaybook({ ...common, task_type }, { signal });
    const header = `Playbook for "${args.query}"${task_type === undefined ? '' : ` (task type ${task_type})`}`;
    return toolResult(memoryList(header, book.entries), book);
  },
);

/** vote, reflect, start_run, complete_run, playbook: the feedback loop (what worked ranks higher). */
export const FEEDBACK_TOOLS: readonly EngramTool[] = [vote, reflect, startRun, completeRun, playbook];
