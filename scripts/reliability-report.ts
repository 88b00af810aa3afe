/**
 * Writes the figures of `make reliability` (one JSON line per fault test, from test/reliability/
 * figures.ts) into docs/reliability.md between its markers, with the machine, date and command.
 * Usage: reliability-report.ts <figures.jsonl> <started ISO> <load average> <command> [failures file]
 * The failures file holds the titles of the tests that failed (mocha's numbered list), if any: the
 * figures are written either way, under a line that says which checks did not hold.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const [file, started, load, command, failuresFile] = process.argv.slice(2);
if (!file || !started || !load || !command) {
  process.stderr.write('usage: reliability-report.ts <figures.jsonl> <started> <load> <command>\n');
  process.exit(2);
}
const DOC = 'docs/reliability.md';
const START = '<!-- reliability:figures:start -->';
const END = '<!-- reliability:figures:end -->';

type Figures = Record<string, unknown> & { test: string };
const figures: Figures[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Figures);
const byTest = new Map(figures.map((f) => [f.test, f]));
const find = (prefix: string) => figures.filter((f) => f.test.startsWith(prefix));

const json = (v: unknown) => '`' + JSON.stringify(v).replace(/"/g, '') + '`';
const out: string[] = [];
out.push(
  `Measured ${started.replace('T', ' ').replace('Z', ' UTC')} with \`${command}\` on ${cpus().length} x ` +
    `${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `${process.platform}; load average ${load} at the start (the machine is shared: other work inflates ` +
    'latencies, never the counts).',
  '',
);
const failures = failuresFile ? readFileSync(failuresFile, 'utf8').trim() : '';
out.push(
  failures === ''
    ? 'Result: every fault test passed.'
    : 'Result: **not every check held**; the figures of the failing tests are below with the others.\n\n' +
        failures
          .split('\n')
          .map((l) => `- ${l.trim()}`)
          .join('\n'),
  '',
);

const pgRows = find('postgres-');
if (pgRows.length > 0) {
  out.push('### PostgreSQL restarted, stopped and frozen under 32 writers', '');
  out.push(
    '| Fault | Requests | Acknowledged = stored by id | Answers | Seconds to recovery | p50 / p99 ms | slowest 503 ms |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const f of pgRows)
    out.push(
      `| ${f.test} | ${String(f.requests)} | ${String(f.acknowledged_and_stored)} | ${json(f.outcomes)} | ` +
        `${String(f.recovery_seconds)} | ${String(f.p50_ms)} / ${String(f.p99_ms)} | ${typeof f.max_ms_of_503 === 'number' ? f.max_ms_of_503 : '-'} |`,
    );
  const logged = byTest.get('postgres-outage-10s')?.log_lines;
  if (logged)
    out.push(
      '',
      `Log lines written during the 10 s stop, per process (no stack trace, no memory content): ${json(logged)}.`,
    );
  out.push('');
}

for (const f of find('nats-outage')) {
  out.push(`### NATS stopped (${f.test.replace('nats-outage-', '')}) under ${String(f.writers)} writers`, '');
  out.push(
    `${String(f.writes)} writes, all answered 200; ${String(f.outbox_peak)} events waited in the outbox at the ` +
      `end of the outage; afterwards ${String(f.events_at_consumer)} events at the JetStream consumer for ` +
      `${String(f.audit_rows)} audit rows, ${String(f.duplicates)} published twice; the outbox was empty ` +
      `${String(f.drain_seconds_after_nats_back)} s after NATS was back.`,
    '',
  );
}

const spread = byTest.get('replicas-spread');
const kill = byTest.get('replicas-sigkill');
if (spread || kill) {
  out.push('### Two replicas of ingest-security and retrieval-ranking, round robin, one SIGKILLed', '');
  if (spread)
    out.push(
      `Calls handled per replica over ${String(spread.seconds)} s (grpc_server_handled_total of each ` +
        `replica's /metrics): AddMemory ${json(spread.add_per_replica)}, Query ${json(spread.query_per_replica)}.`,
      '',
    );
  if (kill)
    out.push(
      `SIGKILL under load: ${String(kill.reads)} reads, ${String(kill.reads_failed)} failed (those in flight ` +
        `were retried on the survivor); ${String(kill.writes)} writes, ${String(kill.writes_in_flight_failed)} ` +
        `in flight at the kill answered 503, ${String(kill.writes_failed_after_kill)} started after it failed; ` +
        `${String(kill.retried_with_key_ok)} retried with their Idempotency-Key succeeded; ` +
        `${String(kill.stored_exactly_once)} of ${String(kill.writes)} stored exactly once.`,
      '',
    );
}

const redis = byTest.get('redis-restart');
if (redis) {
  out.push('### Redis stopped and restarted', '');
  out.push(
    `Agent limit ${String(redis.agent_limit_per_minute)}/min, ${String(redis.requests_per_phase)} requests per ` +
      `phase split over two services: refused with Redis ${String(redis.refused_with_redis)} (one shared budget), ` +
      `without Redis ${String(redis.refused_without_redis)} (per-process budgets), after its return ` +
      `${String(redis.refused_after_redis_back)}. Log lines: fall-back ${json(redis.fallback_log_lines)}, ` +
      `return ${json(redis.return_log_lines)}.`,
    '',
  );
}

const full = byTest.get('embedded-disk-full');
const intact = byTest.get('embedded-disk-intact');
if (full || intact) {
  out.push('### Embedded mode, full and read-only data directory (256 MiB tmpfs)', '');
  out.push(
    `Writes while full: ${json(full?.writes_while_full)} (a write PGlite still had WAL room for is ` +
      'acknowledged and kept); a start on a full, then a read-only directory exits with a message naming ' +
      `the cause; afterwards ${String(intact?.memories_checked)} memories read back unchanged, signatures valid.`,
    '',
  );
}

for (const f of find('soak-')) {
  const minutes = Number(f.test.replace('soak-', '').replace('s', '')) / 60;
  out.push(`### Soak, ${String(Math.round(minutes * 10) / 10)} minutes, ${String(f.clients)} clients`, '');
  out.push(
    `${String(f.requests)} requests ${json(f.by_op)}: ${json(f.outcomes)}, ${String(f.five_xx)} 5xx; ` +
      `p50 ${String(f.p50_ms)} ms, p99 ${String(f.p99_ms)} ms.`,
    '',
  );
  const windows = f.windows as { from_s: number; n: number; p50_ms: number; p99_ms: number }[];
  out.push('| Window from (s) | Requests | p50 ms | p99 ms |', '| --- | --- | --- | --- |');
  for (const w of windows) out.push(`| ${w.from_s} | ${w.n} | ${w.p50_ms} | ${w.p99_ms} |`);
  out.push('');
  // Per process: rss_floor_first, rss_max_first, rss_max_before_last, rss_floor_last, rss_max_last,
  // live_first, live_last, fds_start, fds_max (soak.test.ts).
  const processes = f.processes as Record<string, Record<string, number>>;
  out.push(
    'Resident memory is a sawtooth (V8 lets the old space grow to a multiple of the live heap between ' +
      'full collections), so the table gives its floor and peak in the first and in the last third of ' +
      'the measured period, and the live heap (engram_heap_after_gc_bytes, median per third), which a ' +
      'leak raises and heap sizing does not.',
    '',
    '| Process | RSS floor / peak MiB, first third | RSS peak MiB before the last third | RSS floor / peak MiB, last third | Live heap MiB, first / last third | FDs after warm-up | FDs max |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const [name, g] of Object.entries(processes))
    out.push(
      `| ${name} | ${g.rss_floor_first} / ${g.rss_max_first} | ${g.rss_max_before_last} | ${g.rss_floor_last} / ${g.rss_max_last} | ` +
        `${g.live_first} / ${g.live_last} | ${g.fds_start} | ${g.fds_max} |`,
    );
  out.push('');
  const series = f.series as Record<string, unknown>[];
  const names = Object.keys(processes);
  out.push(
    'RSS MiB / live heap MiB / open FDs per process over time:',
    '',
    `| t (s) | ${names.join(' | ')} |`,
    `| --- | ${names.map(() => '---').join(' | ')} |`,
  );
  const every = Math.max(1, Math.round(series.length / 20));
  for (let i = 0; i < series.length; i += every) {
    const s = series[i]!;
    const live = (s.live_heap_mib ?? {}) as Record<string, number>;
    out.push(
      `| ${String(s.t_s)} | ${names
        .map((n) => {
          const [rss, fds] = s[n] as number[];
          return `${rss} / ${live[n] ?? '-'} / ${fds}`;
        })
        .join(' | ')} |`,
    );
  }
  out.push('');
}

const doc = readFileSync(DOC, 'utf8');
const a = doc.indexOf(START);
const b = doc.indexOf(END);
if (a < 0 || b < a) throw new Error(`${DOC} lacks the figure markers`);
writeFileSync(DOC, doc.slice(0, a + START.length) + '\n' + out.join('\n') + '\n' + doc.slice(b));
process.stdout.write(`reliability: figures of ${figures.length} tests written to ${DOC}\n`);
