import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in answers next: the reply text, or a failure. */
export type ChatBehaviour =
  | { kind: 'reply'; content: string }
  | { kind: 'status'; status: number }
  | { kind: 'body'; body: string }
  | { kind: 'hang'; ms: number };

/**
 * A local stand-in for the paid LLM API, speaking the real OpenAI chat-completions protocol
 * (POST /v1/chat/completions, bearer key, JSON body with model and messages; a chat.completion
 * object back). `decide` picks the behaviour from the user message, so one server can serve
 * several cases; every request is recorded.
 */
export class ChatCompletionsServer {
  readonly requests: {
    authorization?: string;
    body: { model: string; messages: { role: string; content: string }[] };
  }[] = [];
  private server: Server | undefined;

  constructor(private readonly decide: (userText: string) => ChatBehaviour) {}

  get baseUrl(): string {
    const addr = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${addr.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        (b) => {
          if (b.kind === 'hang') {
            const timer = setTimeout(() => res.end(), b.ms);
            res.on('close', () => clearTimeout(timer));
            return;
          }
          if (b.kind === 'status') {
            res.writeHead(b.status, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { message: 'upstream failure', type: 'server_error' } }));
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          if (b.kind === 'body') {
            res.end(b.body);
            return;
          }
          res.end(
            JSON.stringify({
              id: 'chatcmpl-test',
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: this.requests.at(-1)?.body.model ?? 'test',
              choices: [
                { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: b.content } },
              ],
              usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
            }),
          );
        },
        () => {
          res.writeHead(400);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private async handle(req: IncomingMessage): Promise<ChatBehaviour> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return { kind: 'status', status: 404 };
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const body = JSON.parse(raw) as ChatCompletionsServer['requests'][number]['body'];
    this.requests.push({ authorization: req.headers.authorization, body });
    const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
    return this.decide(user);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Replies `{"injection": ..., "confidence": ...}`, the protocol the classifier asks for. */
export const verdict = (injection: boolean, confidence: number): ChatBehaviour => ({
  kind: 'reply',
  content: JSON.stringify({ injection, confidence }),
});
