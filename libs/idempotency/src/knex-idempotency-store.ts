import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type {
  IdempotencyClaim,
  IdempotencyLease,
  IdempotencyScope,
  IdempotencyStore,
  IdempotentRequest,
  StoredOutcome,
} from '@engram/grpc-kit';
import { ConflictError } from '@engram/errors';
import type { Logger } from '@engram/logger';
import { sealContext, type AnswerSeal } from './answer-seal.ts';

const TABLE = 'idempotency_records';

export interface KnexIdempotencyStoreOptions {
  /** The primary: claims must see every other process's claims. */
  readonly knex: Knex;
  /** How long an answer is replayed (IDEMPOTENCY_TTL_HOURS). */
  readonly ttlMs: number;
  readonly logger: Logger;
  /** Encrypts the stored answers (AnswerSeal over the deployment's integrity key). */
  readonly seal: AnswerSeal;
  /**
   * A claim not renewed for this long is abandoned (the process running the request died) and may
   * be taken over by a repeat of the same request. Default 30 s.
   */
  readonly staleAfterMs?: number;
  /** How often a running request renews its claim. Default a third of staleAfterMs. */
  readonly renewEveryMs?: number;
  /** How often expired records are deleted (in batches of SWEEP_BATCH). Default 10 minutes. */
  readonly sweepEveryMs?: number;
}

const DEFAULT_STALE_AFTER_MS = 30_000;
const DEFAULT_SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 1_000;
/** Claims that lose a race with a release or a sweep try again this often before answering in_progress. */
const CLAIM_ATTEMPTS = 3;

interface RecordRow {
  method: string;
  fingerprint: Uint8Array;
  state: 'in_progress' | 'done';
  response: Uint8Array | null;
  /** Whether response is sealed (answers stored before sealing was introduced are not). */
  response_sealed: boolean;
  status_code: number | null;
  status_message: string | null;
  status_details: Uint8Array | null;
  /** Past expires_at, or a stale claim of the same request: the upsert may take it over now. */
  takeable: boolean;
}

/**
 * The IdempotencyStore of every Engram process, on PostgreSQL or PGlite. A claim is one upsert
 * (INSERT ... ON CONFLICT DO UPDATE ... WHERE the record expired or was abandoned), so of concurrent
 * claims in any number of processes exactly one acquires the key; the others read the record. Times
 * are the database's (now()), never a process clock, so replicas agree on expiry and staleness.
 */
export class KnexIdempotencyStore implements IdempotencyStore {
  private readonly knex: Knex;
  private readonly ttlSeconds: number;
  private readonly staleSeconds: number;
  private readonly renewEveryMs: number;
  private readonly sweepEveryMs: number;
  private readonly logger: Logger;
  private readonly seal: AnswerSeal;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(opts: KnexIdempotencyStoreOptions) {
    this.knex = opts.knex;
    this.ttlSeconds = opts.ttlMs / 1000;
    const staleAfterMs = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.staleSeconds = staleAfterMs / 1000;
    this.renewEveryMs = opts.renewEveryMs ?? Math.max(1, Math.floor(staleAfterMs / 3));
    this.sweepEveryMs = opts.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    this.logger = opts.logger;
    this.seal = opts.seal;
  }

  async claim(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotencyClaim> {
    const where = {
      project_id: scope.projectId,
      api_key_id: scope.keyId,
      idempotency_key: scope.key,
    };
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const owner = randomUUID();
      if (await this.tryAcquire(scope, request, owner)) {
        return {
          kind: 'acquired',
          lease: new KnexLease(this.knex, where, owner, this.renewEveryMs, this.logger, (plain) =>
            this.seal.seal(plain, sealContext({ ...scope, method: request.method })),
          ),
        };
      }
      const row = await this.read(scope, request);
      // Released, swept, expired or abandoned since the upsert looked: claim again.
      if (row === undefined || row.takeable) continue;
      if (row.method !== request.method || !bytes(row.fingerprint).equals(request.fingerprint)) {
        return { kind: 'reused' };
      }
      if (row.state === 'in_progress') return { kind: 'in_progress' };
      return { kind: 'replay', outcome: this.outcomeOf(row, scope) };
    }
    return { kind: 'in_progress' };
  }

  /** Inserts the claim, or takes over an expired record or an abandoned claim of the same request. */
  private async tryAcquire(
    scope: IdempotencyScope,
    request: IdempotentRequest,
    owner: string,
  ): Promise<boolean> {
    const result = await this.knex.raw<{ rows: { owner: string }[] }>(
      `insert into ${TABLE} as r
         (project_id, api_key_id, idempotency_key, method, fingerprint, state, owner, expires_at)
       values (?, ?, ?, ?, ?, 'in_progress', ?, now() + make_interval(secs => ?))
       on conflict (project_id, api_key_id, idempotency_key) do update set
         method = excluded.method, fingerprint = excluded.fingerprint, state = 'in_progress',
         owner = excluded.owner, response = null, response_sealed = false, status_code = null, status_message = null,
         status_details = null, created_at = now(), renewed_at = now(), expires_at = excluded.expires_at
       where r.expires_at <= now()
          or (r.state = 'in_progress' and r.renewed_at < now() - make_interval(secs => ?)
              and r.method = excluded.method and r.fingerprint = excluded.fingerprint)
       returning owner`,
      [
        scope.projectId,
        scope.keyId,
        scope.key,
        request.method,
        request.fingerprint,
        owner,
        this.ttlSeconds,
        this.staleSeconds,
      ],
    );
    return result.rows[0]?.owner === owner;
  }

  private async read(scope: IdempotencyScope, request: IdempotentRequest): Promise<RecordRow | undefined> {
    const result = await this.knex.raw<{ rows: RecordRow[] }>(
      `select method, fingerprint, state, response, response_sealed, status_code, status_message, status_details,
              (expires_at <= now() or (state = 'in_progress'
                and renewed_at < now() - make_interval(secs => ?)
                and method = ? and fingerprint = ?)) as takeable
         from ${TABLE}
        where project_id = ? and api_key_id = ? and idempotency_key = ?`,
      [this.staleSeconds, request.method, request.fingerprint, scope.projectId, scope.keyId, scope.key],
    );
    return result.rows[0];
  }

  /**
   * What the first request answered. A sealed answer that does not open (the integrity key changed
   * since it was stored) cannot be replayed, and running the request again could do it twice: the
   * key is refused until its record expires.
   */
  private outcomeOf(row: RecordRow, scope: IdempotencyScope): StoredOutcome {
    if (row.status_code === null) {
      const stored = bytes(row.response ?? new Uint8Array());
      if (!row.response_sealed) return { kind: 'response', response: stored };
      const response = this.seal.open(stored, sealContext({ ...scope, method: row.method }));
      if (response === undefined) {
        throw new ConflictError(
          'the answer kept for this Idempotency-Key can no longer be read (the integrity key changed); use a new key',
          'IDEMPOTENCY_KEY_UNREADABLE',
          'FAILED_PRECONDITION',
        );
      }
      return { kind: 'response', response };
    }
    return {
      kind: 'error',
      code: row.status_code,
      message: row.status_message ?? '',
      details: row.status_details === null ? undefined : bytes(row.status_details),
    };
  }

  /**
   * Deletes expired records, SWEEP_BATCH at a time, until none is left; rows another process is
   * deleting are skipped. Returns how many it deleted. Expired records are never replayed anyway:
   * this only bounds the table.
   */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await this.knex.raw<{ rowCount: number | null; affectedRows?: number }>(
        `delete from ${TABLE} where ctid = any(array(
           select ctid from ${TABLE} where expires_at <= now() limit ? for update skip locked))`,
        [SWEEP_BATCH],
      );
      const deleted = result.rowCount ?? result.affectedRows ?? 0;
      total += deleted;
      if (deleted < SWEEP_BATCH) return total;
    }
  }

  /** Sweeps now and then every sweepEveryMs until stop(); failures are logged and retried next time. */
  start(): void {
    if (this.sweeper !== undefined) return;
    const run = () => {
      this.sweep().then(
        (n) => {
          if (n > 0) this.logger.debug({ deleted: n }, 'expired idempotency records deleted');
        },
        (err: unknown) =>
          this.logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'sweeping expired idempotency records failed',
          ),
      );
    };
    this.sweeper = setInterval(run, this.sweepEveryMs).unref();
    run();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}

/** The claim of one running request: renewed while it runs, then completed or released. */
class KnexLease implements IdempotencyLease {
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly knex: Knex,
    private readonly where: Record<string, string>,
    private readonly owner: string,
    renewEveryMs: number,
    private readonly logger: Logger,
    private readonly sealAnswer: (plain: Buffer) => Buffer,
  ) {
    this.renewal = setInterval(() => void this.renew(), renewEveryMs).unref();
  }

  async complete(outcome: StoredOutcome): Promise<void> {
    clearInterval(this.renewal);
    const stored =
      outcome.kind === 'response'
        ? { response: this.sealAnswer(outcome.response), response_sealed: true }
        : {
            status_code: outcome.code,
            status_message: outcome.message,
            status_details: outcome.details ?? null,
          };
    const n = await this.mine().update({ state: 'done', renewed_at: this.knex.fn.now(), ...stored });
    if (n === 0) {
      // Stalled longer than the stale bound and taken over (or swept): the other run's answer stands.
      this.logger.warn({ idempotency: 'lost' }, 'an idempotency claim was taken over before it completed');
    }
  }

  async release(): Promise<void> {
    clearInterval(this.renewal);
    await this.mine().delete();
  }

  private async renew(): Promise<void> {
    try {
      await this.mine().where({ state: 'in_progress' }).update({ renewed_at: this.knex.fn.now() });
    } catch (err) {
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'renewing an idempotency claim failed',
      );
    }
  }

  private mine() {
    return this.knex(TABLE).where(this.where).andWhere({ owner: this.owner });
  }
}

function bytes(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
