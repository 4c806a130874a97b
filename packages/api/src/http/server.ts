/**
 * The control API server (DESIGN: packages/api): fastify under `<prefix>/ari` with the declared
 * resources, their api-docs and the events WebSocket. Every request is authenticated first.
 */
import type { AddressInfo } from 'node:net';
import websocketPlugin from '@fastify/websocket';
import {
  type AuthFailureLimits,
  type Logger,
  normaliseSocketAddress,
  silentLogger,
  type SwitchboardCore,
  systemClock,
} from '@switchboard/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { MAX_INBOUND_PAYLOAD } from '../events/event-connection.js';
import { EventJournals } from '../events/event-journal.js';
import { OutboundConnections } from '../events/outbound-connections.js';
import { RESOURCES } from '../resources/index.js';
import { registerApiDocs } from '../swagger/api-docs-routes.js';
import { authorize, authorizeEventsConnection } from './auth.js';
import { limitedServerFactory } from './connection-limits.js';
import { LoginGuard } from './login-guard.js';
import { ALL_DIALECTS, dialectOf } from '../dialect/dialect.js';
import { requestDialect, setRequestDialect } from '../dialect/request-dialect.js';
import { ApiError } from './api-error.js';
import { CLUSTER_SECRET_HEADER, forwardToOwner, peerRequest, withPeerLists } from './cluster-forwarding.js';
import { registerClusterLegRoutes } from './cluster-leg-routes.js';
import { installBodyParsers, lastValues, MAX_BODY_BYTES } from './body.js';
import { installErrorHandlers } from './error-handler.js';
import { registerMediaWebSocket } from './media-websocket.js';
import { NO_SCHEMA_COMPILERS } from './no-schema-compilers.js';
import { SnapshotJson } from './snapshot-json.js';
import type { Operation, ResourceDecl } from './operation.js';
import { type OperatorSurface, registerOperatorRoutes } from './operator-routes.js';
import { type MethodHandler, operationHandler, PathTable, type RouteContext, registerPath, toFastifyUrl } from './routes.js';

export interface ApiServerOptions {
  readonly logger?: Logger;
  /** Health, readiness, metrics and the browser console (operator-routes.ts). */
  readonly operator?: OperatorSurface;
  /** Told of every answered request (metrics); `route` is the pattern, never the URL. */
  readonly onRequestDone?: (done: { method: string; route: string; status: number; ms: number }) => void;
  /** Failed-login limits for REST and events logins (defaults: core's DEFAULT_AUTH_FAILURE_LIMITS). */
  readonly loginLimits?: Partial<AuthFailureLimits>;
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
  const context: RouteContext = { core, log, apiRoot, snapshotJson: new SnapshotJson() };
  const paths = new PathTable();
  const allowedOrigin = (origin: string | undefined) => {
    const allowed = core.config.ari.allowedOrigins;
    return origin !== undefined && (allowed.includes('*') || allowed.includes(origin));
  };
  warnAboutUnusableUsers(core, log);
  const guard = new LoginGuard(systemClock, log, { ...core.config.ari.loginLimits, ...options.loginLimits });
  const eventsRoute = `${apiRoot}/events`;

  const app = Fastify({
    serverFactory: limitedServerFactory(core.config.http.limits, log),
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    schemaController: NO_SCHEMA_COMPILERS,
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
  const onRequestDone = options.onRequestDone;
  // One hook on the root, so every route counts (the API, its docs, the operator routes) and a
  // request pays for one hook and one read of its route options.
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: the query string may carry api_key credentials.
    const done = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      ms: reply.elapsedTime,
    };
    log.debug(done, 'request');
    onRequestDone?.(done);
  });
  const operator = options.operator;
  if (operator) {
    app.register(async (scope) =>
      registerOperatorRoutes(scope, { core, prefix: normalizePrefix(core.config.http.prefix), surface: operator }),
    );
  }
  app.register(async (scope) => {
    installErrorHandlers(scope, log, paths);
    scope.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (allowedOrigin(origin)) {
        reply.header('Access-Control-Allow-Origin', origin);
        reply.header('Access-Control-Allow-Credentials', 'true');
      }
      // A request forwarded by another node of the cluster carries its shared secret instead of a login.
      const address = normaliseSocketAddress(request.socket.remoteAddress ?? '');
      const peer = peerRequest(core.cluster, request, (given, secret) => guard.peerLogin(given, secret, address));
      if (peer) {
        if (request.routeOptions.url === eventsRoute) throw new ApiError(403, 'Events connections are not forwarded between nodes');
        setRequestDialect(request, dialectOf(peer.dialect));
        return;
      }
      const query = request.query as Record<string, string | undefined>;
      const user = guard.login(core.config.ari.users, request.headers.authorization, query.api_key, address);
      authorize(user, request.method);
      if (request.routeOptions.url === eventsRoute) authorizeEventsConnection(user);
      setRequestDialect(request, dialectOf(user.dialect));
    });
    if (core.cluster) {
      // A node of a cluster: requests on other nodes' objects go to them, lists include theirs.
      scope.addHook('preHandler', async (request, reply) => {
        if (await forwardToOwner(core, apiRoot, requestDialect(request).name, request, reply)) return reply;
      });
      scope.addHook('onSend', async (request, reply, payload) =>
        reply.statusCode === 200 ? withPeerLists(core, apiRoot, requestDialect(request).name, request, payload) : payload,
      );
    }
    registerApiDocs(scope, apiRoot, RESOURCES, paths, allowedOrigin);
    for (const resource of RESOURCES) registerResource(scope, resource, context, paths, allowedOrigin);
    registerMediaWebSocket(scope, normalizePrefix(core.config.http.prefix), core, log);
  });
  registerClusterLegRoutes(app, normalizePrefix(core.config.http.prefix), core, (request) =>
    guard.peerLogin(
      request.headers[CLUSTER_SECRET_HEADER],
      core.cluster?.secret ?? '',
      normaliseSocketAddress(request.socket.remoteAddress ?? ''),
    ),
  );

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
    // Every dialect's path answers for everyone (`/system/ping` and `/asterisk/ping`).
    const urls = new Set(ALL_DIALECTS.map((d) => dialectOf(d).path(api.path)));
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
