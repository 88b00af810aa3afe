import { CLIENT_VERSION, EngramApi } from './generated/api.ts';
import type { MemoryInput } from './generated/types.ts';
import { importInBatches, type ImportOptions, type ImportSummary } from './import.ts';
import { DEFAULT_TIMEOUT_MS, type CallOptions, type EngramClientOptions } from './options.ts';
import type { RouteSpec } from './route-spec.ts';
import { Transport } from './transport.ts';

/**
 * The Engram REST API. Every route is a method named after its RPC (addMemory, getMemory, query,
 * exportMemories, createKey, ...; see EngramApi), plus importMemories, which batches any number of
 * export rows onto POST /memories/import.
 *
 * ```ts
 * const engram = new EngramClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.ENGRAM_API_KEY! });
 * const { id } = await engram.addMemory({ content: 'Deploys fail with E4711 when the canary is unhealthy', agent_id: 'planner' });
 * const { memories } = await engram.query({ query: 'what does E4711 mean', agent_id: 'planner' });
 * ```
 */
export class EngramClient extends EngramApi {
  readonly baseUrl: string;
  private readonly transport: Transport;

  /** Throws a TypeError when baseUrl is not an http(s) URL or apiKey is empty. */
  constructor(options: EngramClientOptions) {
    super();
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`baseUrl must be an http or https URL, got ${url.protocol}`);
    }
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('apiKey is required');
    }
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') throw new TypeError('no fetch: pass options.fetch');
    this.baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      fetch: (input, init) => fetchFn(input, init),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: options.retry,
      userAgent: options.userAgent ?? `engram-client/${CLIENT_VERSION}`,
      headers: options.headers ?? {},
    });
  }

  /**
   * Imports rows (POST /memories/export's rows, or MemoryInput objects) from any iterable or async
   * iterable, in batches of at most 100 sent one after the other. Each row succeeds or fails on its
   * own: the summary counts them and holds one result per row (index = position in the input).
   *
   * ```ts
   * const summary = await target.importMemories(source.exportMemories({ agent_id: 'planner' }), {
   *   onProgress: (p) => console.log(`${p.imported} imported, ${p.failed} refused`),
   * });
   * ```
   */
  importMemories(
    rows: Iterable<MemoryInput> | AsyncIterable<MemoryInput>,
    options: ImportOptions = {},
  ): Promise<ImportSummary> {
    return importInBatches(rows, options, (request, callOptions) =>
      this.importMemoryBatch(request, callOptions),
    );
  }

  protected unary<T>(route: RouteSpec, request: object, options: CallOptions | undefined): Promise<T> {
    return this.transport.unary<T>(route, request, options);
  }

  protected stream<T>(route: RouteSpec, request: object, options: CallOptions | undefined): AsyncIterable<T> {
    return this.transport.stream<T>(route, request, options);
  }
}
