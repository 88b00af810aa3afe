import { localError } from './errors.ts';
import type {
  AddMemoryBatchResponse,
  BatchItemResult,
  ImportMemoriesRequest,
  MemoryInput,
} from './generated/types.ts';
import type { CallOptions } from './options.ts';

/** The most rows POST /memories/import takes in one request. */
export const MAX_IMPORT_BATCH = 100;

/** How far an import has come; reported after every batch. */
export interface ImportProgress {
  /** Rows sent in the batches answered so far. */
  readonly sent: number;
  /** Rows stored (each under a new id). */
  readonly imported: number;
  /** Rows refused (each result carries its error). */
  readonly failed: number;
  /** Batches answered so far. */
  readonly batches: number;
}

export interface ImportOptions extends CallOptions {
  /** Rows per request, 1 to 100 (default 100). */
  readonly batchSize?: number;
  /** Called after each batch; an import waits for a returned promise before the next batch. */
  readonly onProgress?: (progress: ImportProgress) => void | Promise<void>;
}

export interface ImportSummary extends ImportProgress {
  /** One result per row, in input order; `index` is the row's position in the input. */
  readonly results: readonly BatchItemResult[];
}

/**
 * Sends rows in batches of batchSize, one after the other, each batch one write call (with its own
 * Idempotency-Key, reused on its retries; with options.idempotencyKey K, batch n uses "K-n", so
 * that a whole import repeated with the same K stores nothing twice). A failed call (after its
 * retries) rejects with its EngramError; the batches before it are stored, as onProgress said.
 */
export async function importInBatches(
  rows: Iterable<MemoryInput> | AsyncIterable<MemoryInput>,
  options: ImportOptions,
  send: (request: ImportMemoriesRequest, options: CallOptions) => Promise<AddMemoryBatchResponse>,
): Promise<ImportSummary> {
  const { batchSize = MAX_IMPORT_BATCH, onProgress, idempotencyKey, ...callOptions } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IMPORT_BATCH) {
    throw localError('INVALID_ARGUMENT', `batchSize: must be an integer from 1 to ${MAX_IMPORT_BATCH}`, {
      fieldViolations: [
        {
          field: 'batchSize',
          description: `must be an integer from 1 to ${MAX_IMPORT_BATCH}`,
          reason: 'INVALID_VALUE',
        },
      ],
    });
  }
  const results: BatchItemResult[] = [];
  let progress: ImportProgress = { sent: 0, imported: 0, failed: 0, batches: 0 };
  let batch: MemoryInput[] = [];

  const flush = async () => {
    const memories = batch;
    batch = [];
    const key = idempotencyKey === undefined ? undefined : `${idempotencyKey}-${progress.batches + 1}`;
    const answer = await send(
      { memories },
      { ...callOptions, ...(key === undefined ? {} : { idempotencyKey: key }) },
    );
    let imported = 0;
    for (const result of answer.results) {
      results.push({ ...result, index: progress.sent + result.index });
      if (result.error === undefined) imported++;
    }
    progress = {
      sent: progress.sent + memories.length,
      imported: progress.imported + imported,
      failed: progress.failed + (memories.length - imported),
      batches: progress.batches + 1,
    };
    await onProgress?.(progress);
  };

  for await (const row of rows) {
    batch.push(row);
    if (batch.length === batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  return { ...progress, results };
}
