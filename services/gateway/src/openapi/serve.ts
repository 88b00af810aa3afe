import type { ServerResponse } from 'node:http';
import type { Registry } from '@bufbuild/protobuf';
import type { RouteTable } from '../route-table.ts';
import { buildOpenApiDocument } from './document.ts';

/**
 * The GET /openapi.json handler. The document is built on the first request and kept: it depends
 * only on the descriptors, which do not change while the process runs. Public (no key), and
 * cacheable for a few minutes since it changes only with a deployment.
 */
export function openApiHandler(table: RouteTable, registry: Registry): (res: ServerResponse) => void {
  let payload: string | undefined;
  return (res) => {
    payload ??= JSON.stringify(buildOpenApiDocument(table, registry));
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'content-length': Buffer.byteLength(payload),
    });
    res.end(payload);
  };
}
