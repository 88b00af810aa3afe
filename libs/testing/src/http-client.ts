/** A small JSON-over-HTTP client for tests that drive Engram as a user would. */
export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly text: string;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key?: string,
  ) {}

  withKey(key: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.key !== undefined) h.authorization = `Bearer ${this.key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get<T = Record<string, unknown>>(path: string) {
    return this.request<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body: unknown) {
    return this.request<T>('POST', path, body);
  }

  /** Creates a key through /admin/keys (the client's key must be a system key) and returns a client for it. */
  async createKey(opts: {
    trust_level: string;
    project_id?: string;
    bound_agent_id?: string;
    agent_ids?: string[];
    any_agent?: boolean;
    expires_at?: string;
    name?: string;
  }): Promise<ApiClient> {
    const res = await this.post<{ api_key: string }>('/admin/keys', { name: 'test', ...opts });
    if (res.status !== 200) throw new Error(`creating a key failed: ${res.status} ${res.text}`);
    return this.withKey(res.body.api_key);
  }
}
