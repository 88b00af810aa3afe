import { createServer, type Server } from 'node:http';
import type { EngramMetrics } from '@engram/telemetry';

export interface MetricsEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A listener that answers GET /metrics with the registry's exposition text and nothing else (404 for
 * any other path): a separate port, so Prometheus scrapes a gRPC service without reaching its API.
 */
export async function serveMetrics(
  metrics: EngramMetrics,
  host: string,
  port: number,
): Promise<MetricsEndpoint> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    metrics.scrape().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('scrape failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr !== null ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Prometheus keeps its connection open between scrapes; do not wait for it to go.
        server.closeAllConnections();
      }),
  };
}
