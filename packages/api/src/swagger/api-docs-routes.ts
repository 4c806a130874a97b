/**
 * Serves the generated documents: `<apiRoot>/api-docs/resources.json` and one
 * `<apiRoot>/api-docs/<resource>.json` per resource (GET only), and `<apiRoot>/openapi.json`. `basePath` names the address the
 * client used (its Host header), as the reference does, so swagger clients call us back there.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResourceDecl } from '../http/operation.js';
import { type MethodHandler, type PathTable, registerPath } from '../http/routes.js';
import { ALL_DIALECTS, dialectOf } from '../dialect/dialect.js';
import { requestDialect } from '../dialect/request-dialect.js';
import { buildListing, buildResourceDoc } from './generator.js';
import { buildOpenApiDocument } from './openapi.js';

export function registerApiDocs(
  app: FastifyInstance,
  apiRoot: string,
  resources: readonly ResourceDecl[],
  paths: PathTable,
  allowedOrigin: (origin: string | undefined) => boolean,
): void {
  const basePath = (request: FastifyRequest) =>
    request.headers.host ? `${request.protocol}://${request.headers.host}${apiRoot}` : undefined;
  const get = (handler: MethodHandler) => new Map([['GET', handler]]);

  registerPath(
    app,
    `${apiRoot}/api-docs/resources.json`,
    get((request, reply) => {
      reply.send(buildListing(resources, basePath(request), requestDialect(request)));
    }),
    paths,
    allowedOrigin,
  );
  // The same declarations as OpenAPI 3.1.
  registerPath(
    app,
    `${apiRoot}/openapi.json`,
    get((request, reply) => {
      reply.send(buildOpenApiDocument(resources, basePath(request) ?? apiRoot, requestDialect(request)));
    }),
    paths,
    allowedOrigin,
  );
  // Under every name a dialect gives the resource (`system.json`, `asterisk.json`); each reader
  // gets the document in its own dialect.
  for (const resource of resources) {
    const names = new Set(ALL_DIALECTS.map((d) => dialectOf(d).resourceName(resource.name)));
    for (const name of names) {
      registerPath(
        app,
        `${apiRoot}/api-docs/${name}.json`,
        get((request, reply) => {
          reply.send(buildResourceDoc(resource, basePath(request), requestDialect(request)));
        }),
        paths,
        allowedOrigin,
      );
    }
  }
}
