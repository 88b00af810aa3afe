/**
 * engram audit tail: the latest audit events of the key's project, oldest first; with -f it keeps
 * polling ListAuditEvents and prints each new event once, until Ctrl-C (exit 0).
 * The log is listed newest first with a `since` filter, so each poll asks for everything since the
 * newest event seen, minus an overlap of a few seconds: an event whose transaction committed a moment
 * after a later one is still printed, and the event ids already printed are remembered to print
 * nothing twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expectPositionals, HELP, intOption, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import {
  SecurityAdminServiceClient,
  type AuditEvent,
  type ListAuditEventsRequest,
  type ListAuditEventsResponse,
} from '@engram/proto/engram/security/v1/security';

export const USAGE = `usage: engram audit tail [-n N] [-f] [--type EVENT_TYPE] [--agent A] [--interval SECONDS] [--json]
  Prints the last N audit events of the project, oldest first: time, type, agent, memory, key id and
  details (never content or keys). Needs a privileged or system key.
options:
  -n, --lines N        how many past events (0 to 1000, default 20)
  -f, --follow         keep printing new events as they arrive, until Ctrl-C
  --type EVENT_TYPE    only this event type (e.g. MEMORY_CREATED, SECURITY_REJECTED)
  --agent A            only events of this agent
  --interval SECONDS   how often -f asks for new events (1 to 60, default 2)
  --json               one JSON object per event and line (NDJSON)
${CONNECTION_USAGE}`;

const PAGE = 200;
/** How far back each poll looks before the newest event seen. */
const OVERLAP_MS = 5_000;

type Filter = Pick<ListAuditEventsRequest, 'event_type' | 'agent_id'>;

function eventLine(e: AuditEvent): string {
  return [
    e.created_at,
    e.event_type.padEnd(18),
    `agent=${e.agent_id || '-'}`,
    `memory=${e.memory_id ?? '-'}`,
    `key=${e.api_key_id || '-'}`,
    JSON.stringify(e.details ?? {}),
  ].join('  ');
}

const byTime = (a: AuditEvent, b: AuditEvent) =>
  a.created_at === b.created_at ? a.event_id.localeCompare(b.event_id) : a.created_at < b.created_at ? -1 : 1;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      ...JSON_OPTION,
      ...HELP,
      lines: { type: 'string', short: 'n' },
      follow: { type: 'boolean', short: 'f' },
      type: { type: 'string' },
      agent: { type: 'string' },
      interval: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 0);
  const count = intOption(values.lines, 'lines', 20, 0, 1000, USAGE);
  const intervalMs = intOption(values.interval, 'interval', 2, 1, 60, USAGE) * 1000;
  const filter: Filter = { event_type: values.type, agent_id: values.agent };
  const print = (e: AuditEvent) =>
    process.stdout.write((values.json ? JSON.stringify(e) : eventLine(e)) + '\n');

  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(SecurityAdminServiceClient);
    const list: Lister = (req) =>
      conn.unary(client.listAuditEvents.bind(client), { ...filter, cursor: '', ...req });

    // The newest first, then printed oldest first.
    const latest: AuditEvent[] = [];
    let cursor = '';
    do {
      const page = await list({ cursor, limit: Math.min(PAGE, Math.max(1, count - latest.length)) });
      latest.push(...page.events);
      cursor = page.next_cursor;
    } while (cursor !== '' && latest.length < count);
    latest.slice(0, count).reverse().forEach(print);
    if (!values.follow) return;

    const stop = new AbortController();
    const onSigint = () => stop.abort();
    process.once('SIGINT', onSigint);
    try {
      await follow(list, latest[0]?.created_at, print, intervalMs, stop.signal);
    } finally {
      process.off('SIGINT', onSigint);
    }
  });
}

type Lister = (req: Partial<ListAuditEventsRequest>) => Promise<ListAuditEventsResponse>;

/** Polls for events newer than `newest` (an RFC 3339 time, or none yet) until the signal aborts. */
async function follow(
  list: Lister,
  newest: string | undefined,
  print: (e: AuditEvent) => void,
  intervalMs: number,
  signal: AbortSignal,
): Promise<void> {
  const seen = new Map<string, string>(); // event_id -> created_at
  let watermark = newest;
  /** Everything since the watermark minus the overlap, oldest first, not seen before. */
  const fresh = async (): Promise<AuditEvent[]> => {
    const since = watermark && new Date(Date.parse(watermark) - OVERLAP_MS).toISOString();
    const out: AuditEvent[] = [];
    let cursor = '';
    do {
      const page = await list({ since, cursor, limit: PAGE });
      out.push(...page.events.filter((e) => !seen.has(e.event_id)));
      cursor = page.next_cursor;
    } while (cursor !== '');
    return out.sort(byTime);
  };
  const remember = (events: AuditEvent[]) => {
    for (const e of events) {
      seen.set(e.event_id, e.created_at);
      if (watermark === undefined || e.created_at > watermark) watermark = e.created_at;
    }
    const horizon = watermark && new Date(Date.parse(watermark) - 2 * OVERLAP_MS).toISOString();
    if (horizon) for (const [id, at] of seen) if (at < horizon) seen.delete(id);
  };
  // What was already there when we started is not new, whether or not the first listing showed it.
  if (watermark !== undefined) {
    const start = watermark;
    const known = await fresh();
    remember(known.filter((e) => e.created_at <= start));
    const later = known.filter((e) => e.created_at > start);
    later.forEach(print);
    remember(later);
  }
  while (!signal.aborted) {
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return; // Ctrl-C: the normal end of a follow
    }
    const events = await fresh();
    events.forEach(print);
    remember(events);
  }
}
