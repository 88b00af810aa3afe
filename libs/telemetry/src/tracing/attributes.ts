/**
 * Attribute names of the OpenTelemetry semantic conventions used here. The stable ones (HTTP, DB)
 * follow semconv 1.26+; rpc.* and messaging.* are still incubating upstream, so they are spelled
 * out rather than imported from @opentelemetry/semantic-conventions/incubating (which may rename
 * them in a minor release). No attribute ever carries a request body, memory content, a key, a SQL
 * statement or bound values: only names, codes and identifiers.
 */
export const ATTR = {
  httpRequestMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpResponseStatusCode: 'http.response.status_code',
  rpcSystem: 'rpc.system',
  rpcService: 'rpc.service',
  rpcMethod: 'rpc.method',
  rpcGrpcStatusCode: 'rpc.grpc.status_code',
  dbSystemName: 'db.system.name',
  dbOperationName: 'db.operation.name',
  messagingSystem: 'messaging.system',
  messagingDestinationName: 'messaging.destination.name',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingMessageId: 'messaging.message.id',
  errorType: 'error.type',
  engramRequestId: 'engram.request_id',
} as const;
