export { createGateway } from './server.ts';
export type { Gateway, GatewayDeps } from './server.ts';
export { buildUpstreams } from './upstream-map.ts';
export type { UpstreamAddresses } from './upstream-map.ts';
export { RouteTable, RouteTableError } from './route-table.ts';
export type { Route, RouteLookup } from './route-table.ts';
export { httpStatusFor } from './error-writer.ts';
