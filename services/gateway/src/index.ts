export { createGateway } from './server.ts';
export type { Gateway, GatewayDeps } from './server.ts';
export { buildUpstreams } from './upstream-map.ts';
export type { UpstreamAddresses } from './upstream-map.ts';
export { RouteTable, RouteTableError } from './route-table.ts';
export type { Route, RouteLookup } from './route-table.ts';
export { errorBody, httpStatusFor, writeError } from './error-writer.ts';
export { GatewayError, upstreamUnavailable, validationFailed } from './gateway-error.ts';
export { buildOpenApiDocument, OPENAPI_PATH } from './openapi/document.ts';
