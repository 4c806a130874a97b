/**
 * The control API server (DESIGN: packages/api): fastify under `<prefix>/ari` with the declared
 * resources, their api-docs and the events WebSocket. Every request is authenticated first.
 */
import type { AddressInfo } from 'node:net';
import websocketPlugin from '@fastify/websocket';
import { type Logger, silentLogger, type SwitchboardCore } from '@switchboard/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { MAX_INBOUND_PAYLOAD } from '../events/event-connection.js';
import { EventJournals } from '../events/event-journal.js';
import { OutboundConnections } from '../events/outbound-connections.js';
import { RESOURCES } from '../resources/index.js';
import { registerApiDocs } from '../swagger/api-docs-routes.js';
import { authenticate, authorize, credentialsFrom } from './auth.js';
import { installBodyParsers, lastValues, MAX_BODY_BYTES } from './body.js';
import { installErrorHandlers } from './error-handler.js';
import { registerMediaWebSocket } from './media-websocket.js';
import type { Operation, ResourceDecl } from './operation.js';
import { type MethodHandler, operationHandler, PathTable, type RouteContext, registerPath, toFastifyUrl } from './routes.js';

export interface ApiServerOptions {
  readonly logger?: Logger;
}

export interface ApiServer {
  readonly app: FastifyInstance;
  listen(host: string, port: number): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

/** Caller-chosen ids may be 149 characters (reference README §8) and are URL-encoded in paths. */
const MAX_PATH_PARAMETER_LENGTH = 1024;

export function createApiServer(core: SwitchboardCore, options: ApiServerOptions = {}): ApiServer {
  // The caller names the logger (`switchboard:api`); adding the binding again would repeat it.
  const log = options.logger ?? silentLogger;
  const apiRoot = `${normalizePrefix(core.config.http.prefix)}/ari`;
  const context: RouteContext = { core, log, apiRoot };
  const paths = new PathTable();
  const allowedOrigin = (origin: string | undefined) => {
    const allowed = core.config.ari.allowedOrigins;
    return origin !== undefined && (allowed.includes('*') || allowed.includes(origin));
  };
  warnAboutUnusableUsers(core, log);

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    routerOptions: {
      querystringParser: lastValues,
      maxParamLength: MAX_PATH_PARAMETER_LENGTH,
      // A path that cannot be percent-decoded never reaches a route; answer in our error shape.
      onBadUrl: (_path, _request, response) => {
        response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ message: 'Invalid URL' }));
      },
    },
  });
  installBodyParsers(app);
  app.register(websocketPlugin, {
    options: {
      maxPayload: MAX_INBOUND_PAYLOAD,
      // Echo `ari` (events) or `media` (media WebSockets) when the client asks for it; a client
      // asking for nothing is accepted without one.
      handleProtocols: (protocols) => (protocols.has('ari') ? 'ari' : protocols.has('media') ? 'media' : false),
    },
  });
  // Registered after the WebSocket plugin so that its hooks (which mark upgrade requests and close
  // their sockets after a refusal) run before ours: an upgrade refused with 401 must not linger.
  app.register(async (scope) => {
    installErrorHandlers(scope, log, paths);
    scope.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (allowedOrigin(origin)) {
        reply.header('Access-Control-Allow-Origin', origin);
        reply.header('Access-Control-Allow-Credentials', 'true');
      }
      const query = request.query as Record<string, string | undefined>;
      const user = authenticate(core.config.ari.users, credentialsFrom(request.headers.authorization, query.api_key));
      authorize(user, request.method);
    });
    scope.addHook('onResponse', async (request, reply) => {
      // The route pattern, not the URL: the query string may carry api_key credentials.
      log.debug({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
    });
    registerApiDocs(scope, apiRoot, RESOURCES, paths, allowedOrigin);
    for (const resource of RESOURCES) registerResource(scope, resource, context, paths, allowedOrigin);
    registerMediaWebSocket(scope, normalizePrefix(core.config.http.prefix), core, log);
  });

  const outbound = new OutboundConnections(core, log, () => ({ inject: (options) => app.inject(options), apiRoot }));
  return {
    app,
    async listen(host, port) {
      await app.listen({ host, port });
      outbound.start();
      const address = app.server.address() as AddressInfo;
      log.info({ address: address.address, port: address.port, apiRoot }, 'control API listening');
      return { address: address.address, port: address.port };
    },
    async close() {
      outbound.close();
      await app.close();
      EventJournals.of(core, log).close();
    },
  };
}

function registerResource(
  app: FastifyInstance,
  resource: ResourceDecl,
  context: RouteContext,
  paths: PathTable,
  allowedOrigin: (origin: string | undefined) => boolean,
): void {
  for (const api of resource.apis) {
    const urls = [api.path];
    if (resource.aliasPrefix && api.path.startsWith(`/${resource.name}`)) {
      urls.push(resource.aliasPrefix + api.path.slice(resource.name.length + 1));
    }
    const handlers = new Map<string, MethodHandler>();
    let upgrade: Extract<Operation, { kind: 'websocket' }> | undefined;
    for (const operation of api.operations) {
      if (operation.kind === 'websocket') upgrade = operation;
      else handlers.set(operation.httpMethod, operationHandler(operation, context));
    }
    for (const path of urls) {
      registerPath(app, toFastifyUrl(context.apiRoot, path), handlers, paths, allowedOrigin, upgrade && { operation: upgrade, context });
    }
  }
}

/** `''`, `'/'`, `'foo'`, `'/foo/'` → `''`, `''`, `'/foo'`, `'/foo'` */
function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}

function warnAboutUnusableUsers(core: SwitchboardCore, log: Logger): void {
  for (const user of core.config.ari.users) {
    if (user.passwordFormat !== 'plain') log.warn({ user: user.name }, 'crypt passwords are not supported; this user cannot log in');
  }
}
