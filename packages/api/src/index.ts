export { type ApiServer, type ApiServerOptions, createApiServer } from './http/server.js';
export { RESOURCES } from './resources/index.js';
export { buildListing, buildResourceDoc, declaredErrorResponses } from './swagger/generator.js';
export type { ResourceDecl, Operation } from './http/operation.js';
export { type OperatorSurface, type ReadinessReport, CONSOLE_DIRECTORY } from './http/operator-routes.js';
export { eventConnectionStats } from './events/event-connection.js';
export { buildOpenApiDocument, type OpenApiDocument, type JsonSchema } from './swagger/openapi.js';
