import {
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEFAULT_DUPLICATE_WINDOW_MS } from './event-publisher.ts';
import { DEFAULT_SUBJECT_PREFIX } from './subjects.ts';

/** JetStream API error code: stream name already in use with a different configuration. */
const STREAM_NAME_IN_USE = 10058;

export const DEFAULT_STREAM_NAME = 'ENGRAM_AUDIT';

export interface AuditStreamOptions {
  /** Subject prefix; the stream captures `<prefix>.>`. */
  readonly subjectPrefix?: string | undefined;
  readonly duplicateWindowMs?: number | undefined;
  /** Age after which JetStream drops messages; 0 (default) keeps them (the audit log lives in Postgres). */
  readonly maxAgeMs?: number | undefined;
}

/**
 * Creates the audit stream (file storage, de-duplication window) or brings an existing one's subjects,
 * window and max age to the wanted values. Safe to call from many processes at once.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  name: string = DEFAULT_STREAM_NAME,
  opts: AuditStreamOptions = {},
): Promise<StreamInfo> {
  const wanted = {
    subjects: [`${opts.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX}.>`],
    duplicate_window: nanos(opts.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
    max_age: nanos(opts.maxAgeMs ?? 0),
  };
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(name);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    try {
      return await jsm.streams.add({ name, storage: StorageType.File, ...wanted });
    } catch (addErr) {
      // Another process created it between our info and add: fall through to the update check.
      if (!(addErr instanceof JetStreamApiError) || addErr.code !== STREAM_NAME_IN_USE) throw addErr;
      info = await jsm.streams.info(name);
    }
  }
  const c = info.config;
  const same =
    c.subjects.length === 1 &&
    c.subjects[0] === wanted.subjects[0] &&
    c.duplicate_window === wanted.duplicate_window &&
    c.max_age === wanted.max_age;
  return same ? info : jsm.streams.update(name, { ...c, ...wanted });
}

function isStreamNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
}
