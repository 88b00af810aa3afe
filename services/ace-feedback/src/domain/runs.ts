import { actingAgent, readerOf, type Principal } from '@engram/auth';
import { ConflictError, InvalidArgumentError, NotFoundError } from '@engram/errors';
import type { AddMemoryRequest } from '@engram/proto/engram/ingest/v1/ingest';
import { ERROR_PATTERN_MAX_LENGTH, ID_MAX_LENGTH, LIST_MAX_ENTRIES } from '@engram/security-rules';
import { FieldChecks, isUuid } from './field-checks.ts';
import { itemErrorToDomain } from './pipeline-errors.ts';
import type { MemoryLookup, RunRepository, WritePipeline } from './ports.ts';
import { voteForOutcome, type Run } from './run-status.ts';

/** At most this many serialized bytes of evaluation are kept with a run. */
export const EVALUATION_MAX_BYTES = 16 * 1024;
const REFLECTION_ERROR_MAX_LENGTH = 10_000;

export interface RunDeps {
  readonly runs: RunRepository;
  readonly memories: MemoryLookup;
  readonly pipeline: WritePipeline;
}

export interface StartRunRequest {
  readonly runId: string;
  readonly agentId: string;
  readonly taskType: string;
  readonly memoryIdsUsed: readonly string[];
}

/**
 * Starts tracking a run. The acting agent must be able to read every used memory: an id it cannot
 * read (or that does not exist) is refused with 404 naming the list position, and nothing is stored.
 */
export async function startRun(deps: RunDeps, principal: Principal, req: StartRunRequest): Promise<Run> {
  const checks = new FieldChecks()
    .id('run_id', req.runId, ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .id('task_type', req.taskType, ID_MAX_LENGTH, true);
  if (req.memoryIdsUsed.length > LIST_MAX_ENTRIES)
    checks.add('memory_ids_used', `at most ${LIST_MAX_ENTRIES} ids`, 'TOO_MANY');
  checks.throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const used = [...new Set(req.memoryIdsUsed.map((id) => id.toLowerCase()))];
  const visible = await deps.memories.visibleIds(
    readerOf(principal, agentId),
    used.filter((id) => isUuid(id)),
  );
  const missing = used.findIndex((id) => !visible.has(id));
  if (missing >= 0) {
    throw new NotFoundError(`memory_ids_used[${missing}]: memory not found (or not readable by ${agentId})`);
  }
  const actor = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId };
  const inserted = await deps.runs.insert(actor, {
    runId: req.runId,
    agentId,
    taskType: req.taskType,
    memoryIdsUsed: used,
  });
  if (!inserted) throw new ConflictError(`run ${req.runId} already exists`, 'ALREADY_EXISTS');
  const run = await deps.runs.get(principal.projectId, req.runId);
  if (!run) throw new NotFoundError('run not found');
  return run;
}

export async function getRun(deps: RunDeps, principal: Principal, runId: string): Promise<Run> {
  new FieldChecks().id('run_id', runId, ID_MAX_LENGTH, true).throwIfAny();
  const run = await deps.runs.get(principal.projectId, runId);
  if (!run) throw new NotFoundError('run not found');
  return run;
}

function stringField(evaluation: Record<string, unknown>, key: string): string | undefined {
  const v = evaluation[key];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The reflection a failed run leaves behind: the lesson is the evaluation's error and error_pattern. */
function reflectionOf(run: Run, evaluation: Record<string, unknown>): AddMemoryRequest {
  const error = stringField(evaluation, 'error');
  const pattern = stringField(evaluation, 'error_pattern');
  const content =
    error ??
    (pattern !== undefined
      ? `Run of task ${run.taskType} failed with error pattern: ${pattern}`
      : `Run of task ${run.taskType} failed without a recorded error`);
  return {
    content,
    agent_id: run.agentId,
    memory_type: 'reflection',
    shared_with: [],
    metadata: { run_id: run.runId, task_type: run.taskType, memory_ids_used: [...run.memoryIdsUsed] },
    steps: [],
    trigger_conditions: [],
    error_pattern: pattern,
    source_trajectory_id: run.runId,
  };
}

/**
 * Completes a started run: a helpful (success) or harmful (failure) vote by the run's agent on every
 * used memory, task_id = run_id; on failure first a reflection memory through the write pipeline
 * (kind run_reflection, depth 1 + the deepest used memory, source run = the run). The state change
 * and the votes commit together in one conditional update, so a second completion is 409 and never
 * votes twice. A bound key may complete only its own agent's runs.
 */
export async function completeRun(
  deps: RunDeps,
  principal: Principal,
  caller: unknown,
  req: { runId: string; success: boolean; evaluation: Record<string, unknown> | undefined },
): Promise<Run> {
  const run = await getRun(deps, principal, req.runId);
  const agentId = actingAgent(principal, run.agentId, 'agent_id');
  const evaluation = req.evaluation ?? {};
  if (Buffer.byteLength(JSON.stringify(evaluation), 'utf8') > EVALUATION_MAX_BYTES) {
    throw new InvalidArgumentError('request failed validation', [
      {
        field: 'evaluation',
        description: `at most ${EVALUATION_MAX_BYTES} bytes of JSON`,
        reason: 'TOO_LONG',
      },
    ]);
  }
  new FieldChecks()
    .text('evaluation.error', stringField(evaluation, 'error'), REFLECTION_ERROR_MAX_LENGTH)
    .text('evaluation.error_pattern', stringField(evaluation, 'error_pattern'), ERROR_PATTERN_MAX_LENGTH)
    .throwIfAny();
  if (run.status !== 'started') throw alreadyCompleted(run.runId);

  let reflectionId: string | null = null;
  if (!req.success) {
    const deepest = await deps.memories.deepestProvenance(principal.projectId, run.memoryIdsUsed);
    const res = await deps.pipeline.ingest(
      {
        items: [reflectionOf(run, evaluation)],
        kind: 'run_reflection',
        source_run_id: run.runId,
        depth: run.memoryIdsUsed.length === 0 ? 0 : 1 + (deepest ?? 0),
        atomic: true,
        deprecations: [],
      },
      caller,
    );
    const [result] = res.results;
    if (result?.error) throw itemErrorToDomain(result.error, 'evaluation.');
    if (!res.applied || result?.id === undefined) throw new Error('the write pipeline stored no reflection');
    reflectionId = result.id;
  }
  const completed = await deps.runs.complete(
    { projectId: principal.projectId, agentId, apiKeyId: principal.keyId },
    { runId: run.runId, success: req.success, evaluation, reflectionId, vote: voteForOutcome(req.success) },
  );
  if (!completed) throw alreadyCompleted(run.runId);
  return completed;
}

function alreadyCompleted(runId: string): ConflictError {
  return new ConflictError(
    `run ${runId} is already completed`,
    'RUN_ALREADY_COMPLETED',
    'FAILED_PRECONDITION',
  );
}
