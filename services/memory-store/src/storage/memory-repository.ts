import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';
import { bindsBinaryVectors, type Database } from '@engram/db';
import { vectorParam } from '@engram/embeddings';
import { appendEvent, auditEventRow, type NewAuditEvent } from '@engram/events';
import { ConflictError, isDependencyDown } from '@engram/errors';
import type { Draft, StoredMemory } from '../domain/memory.ts';
import type { ExportFilter, MemoryRepository, Relabel, WriteSession } from '../domain/ports.ts';
import type { PositionedMemory, TimelinePosition } from '../domain/timeline.ts';
import { MEMORY_COLUMNS, memoryColumns, memoryFromRow, whereVisible, type MemoryRow } from '@engram/memories';
import { METRICS, type EngramMetrics } from '@engram/telemetry';
import { dedupKey, dedupLockOrder } from '../domain/lock-order.ts';
import { retryWriteConflicts, type WriteRetryOptions } from './write-retry.ts';
import { WriteGroup } from './write-group.ts';

/** Lone writes grouped into one statement at most by default (DATABASE_WRITE_GROUP_MAX; 35 bindings each). */
export const WRITE_GROUP_MAX = 64;
/** Groups of lone writes running at once on a PostgreSQL pool (one on PGlite). */
export const WRITE_GROUPS_IN_FLIGHT = 4;

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

type InsertInput = Parameters<WriteSession['insert']>[0];

/** created_at as exact text (UTC, microseconds): a timeline cursor must not lose precision. */
const POSITION_AT_SQL = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

type PositionedRow = MemoryRow & { position_seq: string | null; position_at: string };

function positioned(rows: readonly PositionedRow[]): PositionedMemory[] {
  return rows.map((row) => ({
    memory: memoryFromRow(row),
    position: { seq: row.position_seq, at: row.position_at, id: row.id },
  }));
}

/** The columns of one write, in the order of insertRowsSql's VALUES row. */
const WRITE_COLUMNS = [
  // memories
  'id::uuid',
  'project_id',
  'namespace',
  'agent_id',
  'content',
  'content_key',
  'memory_type',
  'scope',
  'trust_level',
  'metadata::jsonb',
  'content_flags::text[]',
  'shared_with::text[]',
  'session_id',
  'sequence_number::bigint',
  'entity_id',
  'error_pattern',
  'source_trajectory_id',
  'integrity_hash',
  'embedding::vector',
  // memory_provenance
  'channel',
  'kind',
  'p_agent_id',
  'p_api_key_id',
  'source_run_id',
  'interaction_id',
  'depth::integer',
  'verdict::jsonb',
  'taint::text[]',
  'policy_version',
  'signature',
  // audit_events
  'event_id::uuid',
  'event_type',
  'e_agent_id',
  'e_api_key_id',
  'details::jsonb',
].map((c) => {
  const [name, type] = c.split('::');
  return { name: name!, cast: type ? `?::${type}` : '?' };
});

const VALUES_ROW = `(${WRITE_COLUMNS.map((c) => c.cast).join(', ')})`;
const insertSqlCache = new Map<number, string>();

/**
 * `rows` memories, each with its provenance row and its MEMORY_CREATED event, in ONE statement
 * (data-modifying CTEs over one VALUES list): a single round trip, atomic on its own, so a write
 * needs no BEGIN/COMMIT and a group of writes (group commit) shares one statement, one run of the
 * lexical trigger and one commit. Rows go in in the order given (the caller's deduplication lock
 * order). Provenance and event are inserted only for the memories that are (not on a
 * deduplication conflict, with a live row or with an earlier row of the same statement).
 */
function insertRowsSql(rows: number): string {
  let sql = insertSqlCache.get(rows);
  if (sql !== undefined) return sql;
  const columns = WRITE_COLUMNS.map((c) => c.name).join(', ');
  sql = `with v (ord, ${columns}) as (values ${Array.from({ length: rows }, (_, i) => `(${i}, ${VALUES_ROW.slice(1)}`).join(', ')}),
     m as (
       insert into memories (id, project_id, namespace, agent_id, content, content_key, memory_type, scope,
         trust_level, metadata, content_flags, shared_with, session_id, sequence_number, entity_id,
         error_pattern, source_trajectory_id, integrity_hash, embedding)
       select id, project_id, namespace, agent_id, content, content_key, memory_type, scope, trust_level,
         metadata, content_flags, shared_with, session_id, sequence_number, entity_id, error_pattern,
         source_trajectory_id, integrity_hash, embedding
         from v order by ord
       on conflict (project_id, namespace, agent_id, scope, memory_type, content_key) where not is_deprecated
       do nothing
       returning id, project_id),
     p as (
       insert into memory_provenance (memory_id, project_id, channel, kind, agent_id, api_key_id,
         source_run_id, interaction_id, depth, verdict, taint, policy_version, signature)
       select m.id, m.project_id, v.channel, v.kind, v.p_agent_id, v.p_api_key_id, v.source_run_id,
         v.interaction_id, v.depth, v.verdict, v.taint, v.policy_version, v.signature
         from m join v on v.id = m.id),
     e as (
       insert into audit_events (event_id, event_type, project_id, agent_id, memory_id, api_key_id, details)
       select v.event_id, v.event_type, m.project_id, v.e_agent_id, m.id, v.e_api_key_id, v.details
         from m join v on v.id = m.id order by v.ord)
     select id::text as id from m`;
  if (insertSqlCache.size < 128) insertSqlCache.set(rows, sql);
  return sql;
}

/**
 * The bindings of one write, in WRITE_COLUMNS order; the embedding in pgvector's binary form for
 * PostgreSQL (`binaryVector`), as text for PGlite.
 */
function writeBindings(input: InsertInput, created: NewAuditEvent, binaryVector: boolean): Knex.RawBinding[] {
  const { draft: d } = input;
  const p = d.provenance;
  const e = auditEventRow(created);
  return [
    input.id,
    input.projectId,
    d.namespace,
    d.agent_id,
    d.content,
    input.key,
    d.memory_type,
    d.scope,
    d.trust_level,
    JSON.stringify(d.metadata),
    d.content_flags,
    d.shared_with,
    d.session_id ?? null,
    d.sequence_number ?? null,
    d.entity_id ?? null,
    d.error_pattern ?? null,
    d.source_trajectory_id ?? null,
    input.integrityHash,
    vectorParam(input.embedding, binaryVector),
    p.channel,
    p.kind,
    p.agent_id,
    p.api_key_id ?? null,
    p.source_run_id ?? null,
    p.interaction_id ?? null,
    p.depth,
    JSON.stringify(p.verdict),
    p.taint,
    p.policy_version,
    input.provenanceSignature,
    e.event_id,
    e.event_type,
    e.agent_id,
    e.api_key_id,
    e.details,
  ];
}

/** A write of insertMemories: the memory with its provenance and MEMORY_CREATED event, as bindings. */
export interface MemoryWrite {
  readonly input: InsertInput;
  readonly bindings: readonly Knex.RawBinding[];
}

/** Builds a write before it joins a group, so what cannot be bound fails that write alone. */
export function memoryWrite(input: InsertInput, created: NewAuditEvent, binaryVector: boolean): MemoryWrite {
  return { input, bindings: writeBindings(input, created, binaryVector) };
}

/**
 * Inserts `writes` (memory, provenance, event each) in one statement, in the order given; answers,
 * per write, true when it was inserted and false when a live duplicate (or an earlier write of the
 * same statement with the same deduplication key) held its content.
 */
export async function insertMemories(q: Knex | Knex.Transaction, writes: readonly MemoryWrite[]) {
  const bindings: Knex.RawBinding[] = [];
  for (const w of writes) bindings.push(...w.bindings);
  const result: { rows: { id: string }[] } = await q.raw(insertRowsSql(writes.length), bindings);
  const inserted = new Set(result.rows.map((r) => r.id.toLowerCase()));
  return writes.map((w) => inserted.has(w.input.id.toLowerCase()));
}

async function insertMemory(
  q: Knex | Knex.Transaction,
  input: InsertInput,
  created: NewAuditEvent,
  binaryVector: boolean,
) {
  const [inserted] = await insertMemories(q, [memoryWrite(input, created, binaryVector)]);
  return inserted === true;
}

class KnexWriteSession implements WriteSession {
  constructor(
    private readonly trx: Knex.Transaction,
    private readonly binaryVector: boolean,
  ) {}

  async findDuplicate(projectId: string, d: Draft, key: string): Promise<StoredMemory | undefined> {
    const row = (await this.trx('memories')
      .select(MEMORY_COLUMNS)
      .where({
        project_id: projectId,
        namespace: d.namespace,
        agent_id: d.agent_id,
        scope: d.scope,
        memory_type: d.memory_type,
        content_key: key,
        is_deprecated: false,
      })
      .first()) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  insert(input: InsertInput, created: NewAuditEvent): Promise<boolean> {
    return insertMemory(this.trx, input, created, this.binaryVector);
  }

  async deprecate(
    reader: Reader,
    ownerOnly: boolean,
    memoryId: string,
    supersededBy: string | null,
    reason: string,
  ): Promise<StoredMemory | undefined> {
    const qb = this.trx('memories')
      .update({
        is_deprecated: true,
        superseded_by: supersededBy,
        deprecation_reason: reason,
        updated_at: this.trx.fn.now(),
      })
      .where({ id: memoryId, is_deprecated: false });
    whereVisible(qb, reader);
    if (ownerOnly) void qb.where('memories.agent_id', reader.agentId);
    const rows: MemoryRow[] = await qb.returning(memoryColumns());
    return rows[0] ? memoryFromRow(rows[0]) : undefined;
  }

  async isVisible(reader: Reader, memoryId: string): Promise<boolean> {
    const row: unknown = await whereVisible(
      this.trx('memories').select('id').where({ id: memoryId, is_deprecated: false }),
      reader,
    ).first();
    return row !== undefined;
  }

  async lockVisible(reader: Reader, memoryId: string): Promise<StoredMemory | undefined> {
    const row = (await whereVisible(
      this.trx('memories').select(MEMORY_COLUMNS).where('id', memoryId).forUpdate(),
      reader,
    ).first()) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async relabel(memoryId: string, label: Relabel): Promise<StoredMemory> {
    try {
      // A savepoint, so a unique violation leaves the surrounding transaction usable.
      const rows: MemoryRow[] = await this.trx.transaction((sp) =>
        sp('memories')
          .update({
            scope: label.scope,
            trust_level: label.trust_level,
            shared_with: sp.raw('?::text[]', [[...label.shared_with]]),
            integrity_hash: label.integrity_hash,
            updated_at: sp.fn.now(),
          })
          .where('id', memoryId)
          .returning(MEMORY_COLUMNS),
      );
      if (!rows[0]) throw new Error('relabelled memory vanished inside its transaction');
      return memoryFromRow(rows[0]);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ConflictError('the same content already exists in that scope for this agent');
      throw err;
    }
  }

  async delete(memoryId: string): Promise<boolean> {
    const rows: { id: string }[] = await this.trx('memories').where('id', memoryId).delete().returning('id');
    return rows.length > 0;
  }

  async appendEvent(event: Parameters<WriteSession['appendEvent']>[0]): Promise<void> {
    await appendEvent(this.trx, event);
  }
}

/**
 * Memories on knex: writes on the primary, reads on the read connection. A write transaction that
 * PostgreSQL aborts for a deadlock or a serialization failure runs again (retryWriteConflicts; each
 * retry counted in engram_db_write_retries_total), so `work` must touch only the database.
 */
export class KnexMemoryRepository implements MemoryRepository {
  private readonly retry: WriteRetryOptions;
  private readonly lone: WriteGroup<MemoryWrite, boolean>;
  /** node-postgres sends a Buffer in binary: vectors go as pgvector's binary form there. */
  private readonly binaryVector: boolean;

  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void = () => {},
    metrics?: EngramMetrics,
    opts: { readonly writeGroupMax?: number } = {},
  ) {
    this.binaryVector = bindsBinaryVectors(db.engine);
    const retries = metrics?.counter(METRICS.dbWriteRetries);
    this.retry = { onRetry: (conflict) => retries?.inc({ conflict }) };
    const groups = metrics?.histogram(METRICS.dbGroupCommitWrites);
    this.lone = new WriteGroup<MemoryWrite, boolean>(
      (writes) => this.insertGroup(writes),
      (w) => this.insertGroup([w]).then(([inserted]) => inserted === true),
      {
        // PGlite runs one statement at a time: a second group in flight would only wait for it.
        maxInFlight: db.engine === 'pglite' ? 1 : WRITE_GROUPS_IN_FLIGHT,
        maxSize: opts.writeGroupMax ?? WRITE_GROUP_MAX,
        onGroup: (size) => groups?.observe(size),
        unavailable: isDependencyDown,
      },
    );
  }

  async transaction<T>(work: (s: WriteSession) => Promise<T>): Promise<T> {
    const out = await retryWriteConflicts(
      () => this.db.knex.transaction((trx) => work(new KnexWriteSession(trx, this.binaryVector))),
      this.retry,
    );
    this.onCommit();
    return out;
  }

  /** One statement on its own, grouped with the lone writes that arrive while others run. */
  async insertAlone(input: InsertInput, created: NewAuditEvent): Promise<boolean> {
    return this.lone.write(memoryWrite(input, created, this.binaryVector));
  }

  /** Writes in the deduplication lock order (no deadlock between groups), answers in theirs. */
  private async insertGroup(writes: readonly MemoryWrite[]): Promise<boolean[]> {
    const order = dedupLockOrder(writes.map(({ input: i }) => dedupKey(i.projectId, i.draft, i.key)));
    const sorted = order.map((i) => writes[i]!);
    const inserted = await retryWriteConflicts(() => insertMemories(this.db.knex, sorted), this.retry);
    const answers = new Array<boolean>(writes.length);
    order.forEach((original, k) => (answers[original] = inserted[k]!));
    if (inserted.includes(true)) this.onCommit();
    return answers;
  }

  async findVisible(reader: Reader, id: string): Promise<StoredMemory | undefined> {
    const row = (await whereVisible(
      this.db.read('memories').select(MEMORY_COLUMNS).where('id', id),
      reader,
    ).first()) as MemoryRow | undefined;
    return row ? memoryFromRow(row) : undefined;
  }

  async sessionTimeline(
    reader: Reader,
    namespace: string | undefined,
    sessionId: string,
    after: TimelinePosition | undefined,
    limit: number,
  ): Promise<PositionedMemory[]> {
    const r = this.db.read;
    const qb = r('memories')
      .select(MEMORY_COLUMNS)
      .select(r.raw(`sequence_number::text as position_seq, ${POSITION_AT_SQL} as position_at`))
      .where({ session_id: sessionId, memory_type: 'episodic', is_deprecated: false })
      .orderByRaw('sequence_number asc nulls last, created_at asc, id asc')
      .limit(limit);
    if (namespace) void qb.where('namespace', namespace);
    if (after?.seq === null) {
      // Past the numbered rows: only unnumbered ones remain, by (created_at, id).
      void qb.whereRaw('sequence_number is null and (created_at, id) > (?::timestamptz, ?::uuid)', [
        after.at,
        after.id,
      ]);
    } else if (after) {
      void qb.whereRaw(
        `(sequence_number > ?::bigint or sequence_number is null
          or (sequence_number = ?::bigint and (created_at, id) > (?::timestamptz, ?::uuid)))`,
        [after.seq, after.seq, after.at, after.id],
      );
    }
    return positioned((await whereVisible(qb, reader)) as PositionedRow[]);
  }

  async entityMemories(
    reader: Reader,
    namespace: string | undefined,
    entityId: string,
    after: TimelinePosition | undefined,
    limit: number,
  ): Promise<PositionedMemory[]> {
    const r = this.db.read;
    const qb = r('memories')
      .select(MEMORY_COLUMNS)
      .select(r.raw(`null::text as position_seq, ${POSITION_AT_SQL} as position_at`))
      .where({ entity_id: entityId, memory_type: 'semantic', is_deprecated: false })
      .orderBy([{ column: 'created_at', order: 'asc' }, 'id'])
      .limit(limit);
    if (namespace) void qb.where('namespace', namespace);
    if (after) void qb.whereRaw('(created_at, id) > (?::timestamptz, ?::uuid)', [after.at, after.id]);
    return positioned((await whereVisible(qb, reader)) as PositionedRow[]);
  }

  async exportPage(
    reader: Reader,
    filter: ExportFilter,
    afterId: string | undefined,
    limit: number,
  ): Promise<StoredMemory[]> {
    const qb = this.db.read('memories').select(MEMORY_COLUMNS).orderBy('id').limit(limit);
    if (afterId !== undefined) void qb.where('id', '>', afterId);
    if (filter.namespace !== undefined) void qb.where('namespace', filter.namespace);
    if (filter.memoryTypes.length > 0) void qb.whereIn('memory_type', [...filter.memoryTypes]);
    if (!filter.includeDeprecated) void qb.where('is_deprecated', false);
    const rows = (await whereVisible(qb, reader)) as MemoryRow[];
    return rows.map(memoryFromRow);
  }

  async legacySignatureCounts(): Promise<{ unsigned: number; v1: number }> {
    const row = (await this.db
      .read('memories')
      .select(
        this.db.read.raw(`count(*) filter (where coalesce(integrity_hash, '') = '') as unsigned`),
        this.db.read.raw(
          `count(*) filter (where integrity_hash <> '' and integrity_hash not like 'v2:%') as v1`,
        ),
      )
      .first()) as { unsigned: string | number; v1: string | number } | undefined;
    return { unsigned: Number(row?.unsigned ?? 0), v1: Number(row?.v1 ?? 0) };
  }

  async recordEvent(event: Parameters<WriteSession['appendEvent']>[0]): Promise<string> {
    const record = await this.db.knex.transaction((trx) => appendEvent(trx, event));
    this.onCommit();
    return record.eventId;
  }
}
