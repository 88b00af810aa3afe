/**
 * The feedback loop: agents record which memories they used, Engram learns which ones helped.
 *
 * A "deployer" agent keeps strategies and a procedure for deploying a service. It starts a run with
 * the memories it used (POST /ace/run) and completes it: a success votes helpful on every memory the
 * run used, a failure votes harmful and leaves a reflection (the lesson) behind. A "reviewer" agent
 * adds explicit votes. The playbook (POST /memories/ace/playbook) then ranks what worked first, by
 * 0.5 similarity + 0.5 effectiveness, where effectiveness = (helpful - harmful) / (helpful + harmful + 1).
 *
 * Run it against `make start` (see examples/README.md):
 *   ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_API_KEY=<system key> node --import tsx examples/feedback-loop.ts
 * It exits non-zero when Engram does not behave as shown.
 */
import { randomUUID } from 'node:crypto';
import { EngramClient, type Memory } from '@engram/client';

const baseUrl = process.env.ENGRAM_URL ?? 'http://127.0.0.1:8080';
const systemKey = process.env.ENGRAM_API_KEY ?? '';
if (systemKey === '') {
  console.error('Set ENGRAM_API_KEY to the system key that `make start` printed (and ENGRAM_URL).');
  process.exit(2);
}
// A namespace of its own per run, so that the example can run again on the same Engram.
const namespace = `example-feedback-${Date.now().toString(36)}`;
const QUERY = 'how do I deploy the payments service';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
  console.log(`   ok: ${what}`);
}

function printPlaybook(entries: readonly Memory[]): void {
  entries.forEach((e, i) => {
    const similarity = (e.score ?? 0).toFixed(2);
    const effectiveness = (e.effectiveness_score ?? 0).toFixed(2).padStart(5);
    console.log(`   #${i + 1} similarity ${similarity} effectiveness ${effectiveness}  ${e.content}`);
  });
}

const admin = new EngramClient({ baseUrl, apiKey: systemKey });
const deployerKey = await admin.createKey({
  name: 'example: deployer',
  trust_level: 'internal',
  bound_agent_id: 'deployer',
});
const reviewerKey = await admin.createKey({
  name: 'example: reviewer',
  trust_level: 'internal',
  bound_agent_id: 'reviewer',
});
const deployer = new EngramClient({ baseUrl, apiKey: deployerKey.api_key });
const reviewer = new EngramClient({ baseUrl, apiKey: reviewerKey.api_key });

try {
  console.log('1. The deployer stores two strategies and a procedure (global by default: team-wide)');
  const restartAll = await deployer.addMemory({
    content: 'To deploy the payments service, restart every payments pod at once.',
    memory_type: 'strategy',
    namespace,
  });
  const canary = await deployer.addMemory({
    content: 'To deploy the payments service safely, roll it out one pod at a time behind a canary.',
    memory_type: 'strategy',
    namespace,
  });
  const checklist = await deployer.addProcedural({
    content: 'Payments deploy checklist',
    steps: ['freeze schema changes', 'deploy the canary', 'compare error rates for 10 minutes', 'roll on'],
    namespace,
  });
  console.log('   the playbook before any feedback (similarity alone):');
  printPlaybook((await deployer.playbook({ query: QUERY, namespace, top_k: 5 })).entries);

  console.log('2. A run that used the canary strategy and the checklist succeeds');
  const goodRun = await deployer.startRun({
    run_id: `deploy-${randomUUID()}`, // unique per project; a run completes exactly once
    task_type: 'deploy-payments',
    memory_ids_used: [canary.id, checklist.id],
  });
  const good = await deployer.completeRun({ run_id: goodRun.run_id, success: true });
  check(
    good.status === 'completed' && good.success === true,
    `run ${good.run_id} completed: helpful votes cast`,
  );

  console.log('3. A run that followed the checklist but restarted every pod at once fails');
  const badRun = await deployer.startRun({
    run_id: `deploy-${randomUUID()}`,
    task_type: 'deploy-payments',
    memory_ids_used: [restartAll.id, checklist.id],
  });
  const bad = await deployer.completeRun({
    run_id: badRun.run_id,
    success: false,
    evaluation: {
      error: 'Restarting every payments pod at once dropped live traffic for 90 seconds.',
      error_pattern: 'full-restart-outage',
    },
  });
  check(bad.reflection_id !== undefined, `run ${bad.run_id} failed: harmful vote cast, reflection recorded`);
  const reflection = await deployer.getMemory({ id: bad.reflection_id! });
  console.log(
    `   reflection (${reflection.memory_type}, pattern ${reflection.error_pattern}): ${reflection.content}`,
  );

  console.log('4. The reviewer votes explicitly (one ballot per memory and voter: voting again replaces it)');
  const up = await reviewer.vote({
    memory_id: canary.id,
    vote: 'helpful',
    context: 'post-deploy review: zero errors during the rollout',
    task_id: 'review-payments-deploy',
  });
  const down = await reviewer.vote({
    memory_id: restartAll.id,
    vote: 'harmful',
    context: 'post-deploy review: caused the outage',
    task_id: 'review-payments-deploy',
  });
  console.log(
    `   canary strategy: ${up.helpful} helpful, ${up.harmful} harmful -> ${up.effectiveness_score.toFixed(2)}`,
  );
  console.log(
    `   restart-all:     ${down.helpful} helpful, ${down.harmful} harmful -> ${down.effectiveness_score.toFixed(2)}`,
  );
  check(up.helpful === 2 && up.harmful === 0, 'the canary strategy has the run vote and the review vote');

  console.log('5. The playbook now ranks what worked first');
  const { entries } = await deployer.playbook({ query: QUERY, namespace, top_k: 5 });
  printPlaybook(entries);
  const rank = (id: string) => entries.findIndex((e) => e.id === id);
  check(rank(canary.id) === 0, 'the canary strategy is ranked first');
  check((entries[0]?.effectiveness_score ?? 0) > 0.6, 'its effectiveness is (2 - 0) / (2 + 0 + 1) = 0.67');
  check(
    rank(restartAll.id) > 0 && (entries[rank(restartAll.id)]?.effectiveness_score ?? 0) < 0,
    'the strategy that failed sinks, with a negative effectiveness',
  );
  // Both runs were the deployer's: its later (failed) run's ballot replaced the earlier one, so one
  // agent's runs count once, as its latest verdict: (0 - 1) / (0 + 1 + 1) = -0.5.
  check(
    entries.find((e) => e.id === checklist.id)?.effectiveness_score === -0.5,
    "the checklist, used by both of the deployer's runs, carries the deployer's latest verdict only",
  );

  // The agent playbook also weighs how memories did in completed runs of one task type.
  const forTask = await deployer.agentPlaybook({ query: QUERY, task_type: 'deploy-payments', namespace });
  check(forTask.entries[0]?.id === canary.id, 'the agent playbook for task deploy-payments agrees');
  console.log('Done: votes from runs and reviewers reorder the playbook.');
} finally {
  // Example keys are revoked at the end; a real deployment keeps its agents' keys.
  await admin.revokeKey({ key_id: deployerKey.key_id });
  await admin.revokeKey({ key_id: reviewerKey.key_id });
}
