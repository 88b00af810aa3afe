/**
 * Two agents share work through a handoff.
 *
 * A "researcher" agent stores what it found, some of it shared with a "writer" agent and some of it
 * private, then hands the task over. The handoff (POST /memories/handoff) returns the researcher's
 * memories that are relevant to the task AND that the writer may read: the private note never
 * travels, and the writer cannot read it by id or find it by search either.
 *
 * Run it against `make start` (see examples/README.md):
 *   ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_API_KEY=<system key> node --import tsx examples/handoff.ts
 * It exits non-zero when Engram does not behave as shown.
 */
import { EngramClient, EngramError } from '@engram/client';

const baseUrl = process.env.ENGRAM_URL ?? 'http://127.0.0.1:8080';
const systemKey = process.env.ENGRAM_API_KEY ?? '';
if (systemKey === '') {
  console.error('Set ENGRAM_API_KEY to the system key that `make start` printed (and ENGRAM_URL).');
  process.exit(2);
}
// A namespace of its own per run, so that the example can run again on the same Engram.
const namespace = `example-handoff-${Date.now().toString(36)}`;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
  console.log(`   ok: ${what}`);
}

/** The EngramError a call must fail with; a call that succeeds is a failure of the example. */
async function refusal(call: Promise<unknown>): Promise<EngramError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof EngramError) return err;
    throw err;
  }
  throw new Error('expected Engram to refuse this call, but it succeeded');
}

const admin = new EngramClient({ baseUrl, apiKey: systemKey });

console.log('1. The administrator creates one key per agent, each bound to its agent');
const researcherKey = await admin.createKey({
  name: 'example: researcher',
  trust_level: 'internal',
  bound_agent_id: 'researcher',
});
const writerKey = await admin.createKey({
  name: 'example: writer',
  trust_level: 'internal',
  bound_agent_id: 'writer',
});
// The raw key (api_key) is shown once; only its hash is stored. Never print or log it.
const researcher = new EngramClient({ baseUrl, apiKey: researcherKey.api_key });
const writer = new EngramClient({ baseUrl, apiKey: writerKey.api_key });
console.log(`   researcher key ${researcherKey.key_id}, writer key ${writerKey.key_id}`);

try {
  console.log('2. The researcher stores its findings');
  // A bound key acts as its agent: agent_id may be left out.
  const findings = [
    'Acme Payments moved its API to v3 in March; v2 endpoints return HTTP 410 since June.',
    'Acme v3 rate limits are 600 requests per minute per merchant, with a Retry-After header.',
  ];
  const shared = await Promise.all(
    findings.map((content) =>
      researcher.addMemory({ content, scope: 'agent-shared', shared_with: ['writer'], namespace }),
    ),
  );
  const glossary = await researcher.addSemantic({
    content: 'A merchant in the Acme API is one legal entity that accepts payments.',
    entity_id: 'acme-merchant',
    scope: 'global', // every agent of the project may read it
    namespace,
  });
  const privateNote = await researcher.addMemory({
    content: 'Unverified hunch: the Acme v3 migration might slip again, double-check before quoting dates.',
    scope: 'agent-private', // the researcher's own working note
    namespace,
  });
  for (const w of [...shared, glossary, privateNote]) console.log(`   stored ${w.id} as ${w.scope}`);

  console.log('3. The researcher hands the task over to the writer');
  const handoff = await researcher.handoff({
    source_agent_id: 'researcher',
    target_agent_id: 'writer',
    task_context: 'Write the customer notice about the Acme v3 API migration and its rate limits',
    max_memories: 10,
    namespace,
  });
  for (const m of handoff.memories) console.log(`   handed over (${m.scope}): ${m.content}`);
  const handed = new Set(handoff.memories.map((m) => m.id));
  check(
    [...shared, glossary].every((w) => handed.has(w.id)),
    'the shared findings and the global glossary entry are handed over',
  );
  const own = await researcher.getMemory({ id: privateNote.id });
  check(
    own.id === privateNote.id && !handed.has(privateNote.id),
    'the private note is not handed over, although the researcher itself can read it',
  );

  console.log('4. The writer reads what it may, and nothing else');
  const first = await writer.getMemory({ id: shared[0]!.id });
  check(first.agent_id === 'researcher', `the writer reads a shared finding: "${first.content}"`);
  const hidden = await refusal(writer.getMemory({ id: privateNote.id }));
  check(
    hidden.status === 404,
    `the writer cannot read the private note by id (${hidden.status} ${hidden.reason})`,
  );
  const search = await writer.query({ query: 'Acme v3 migration dates hunch', namespace, top_k: 20 });
  check(
    search.memories.length > 0 && !search.memories.some((m) => m.id === privateNote.id),
    `the writer's search finds ${search.memories.length} memories, never the private note`,
  );
  const mismatch = await refusal(writer.getMemory({ id: privateNote.id, agent_id: 'researcher' }));
  check(
    mismatch.reason === 'AGENT_MISMATCH',
    `the writer's key cannot act as the researcher (${mismatch.status} ${mismatch.reason})`,
  );
  console.log('Done: the handoff carried only what the writer may read.');
} finally {
  // Example keys are revoked at the end; a real deployment keeps its agents' keys.
  await admin.revokeKey({ key_id: researcherKey.key_id });
  await admin.revokeKey({ key_id: writerKey.key_id });
}
