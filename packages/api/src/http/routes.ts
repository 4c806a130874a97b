/**
 * Registers declared operations with fastify. Routing follows the reference (README §1): a path is
 * matched first (a literal segment beats a parameter), then the method; a known path with another
 * method answers 405 with `Allow`, OPTIONS answers 204 with `Allow`. Each path is one fastify route
 * for every method so that those answers come from one place.
 */
import type { Logger, SwitchboardCore } from '@switchboard/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Dialect } from '../dialect/dialect.js';
import { requestDialect } from '../dialect/request-dialect.js';
import { ApiError } from './api-error.js';
import { credentialsFrom } from './auth.js';
import type { ApiCall, ApiResult, Operation, WebSocketSession } from './operation.js';
import { parseParameters } from './params.js';
import type { RawParamValues } from '../swagger/types.js';
import { requestSources } from './request-sources.js';
import type { SnapshotJson } from './snapshot-json.js';

export interface RouteContext {
  readonly core: SwitchboardCore;
  readonly log: Logger;
  /** `<prefix>/ari` */
  readonly apiRoot: string;
  readonly snapshotJson: SnapshotJson;
}

export type MethodHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | void;

const ALL_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Every registered path as a pattern, to tell "unknown" from "unknown because of a trailing slash". */
export class PathTable {
  readonly #patterns: RegExp[] = [];

  add(fastifyUrl: string): void {
    const source = fastifyUrl
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    this.#patterns.push(new RegExp(`^${source}$`));
  }

  has(path: string): boolean {
    return this.#patterns.some((pattern) => pattern.test(path));
  }
}

export const trailingSlashNotFound = () => new ApiError(404, 'Resource not found; remove the trailing slash');

/** `/channels/{channelId}` → `/channels/:channelId` */
export const toFastifyUrl = (apiRoot: string, path: string) => apiRoot + path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * One path with its handlers by method. `upgrade` takes GET for a WebSocket operation: its plain
 * HTTP GET is refused with 426 and an upgrade runs the operation.
 */
export function registerPath(
  app: FastifyInstance,
  url: string,
  handlers: ReadonlyMap<string, MethodHandler>,
  paths: PathTable,
  allowedOrigin: (origin: string | undefined) => boolean,
  upgrade?: { operation: Extract<Operation, { kind: 'websocket' }>; context: RouteContext },
): void {
  const methods = [...handlers.keys(), ...(upgrade ? ['GET'] : [])];
  const allow = ['OPTIONS', ...methods].join(',');
  const hasParameters = url.includes('/:');
  paths.add(url);
  app.route({
    method: ALL_METHODS.filter((m) => !(upgrade && m === 'GET')),
    url,
    // Not async: most operations answer synchronously, and their answer need not wait for a promise.
    handler: (request, reply) => {
      if (request.method === 'OPTIONS') {
        answerOptions(request, reply, allow, allowedOrigin);
        return;
      }
      // `/channels/` reaches `/channels/:channelId` with an empty id: that path does not exist.
      if (hasParameters && Object.values(request.params as Record<string, string>).includes('')) throw trailingSlashNotFound();
      const handler = handlers.get(request.method);
      if (!handler) throw new ApiError(405, 'Invalid method', { Allow: allow });
      // A synchronous handler has answered (its onSend hooks may still be running,
      // cluster-forwarding.ts) and fastify waits for nothing more. An asynchronous one resolves to
      // the reply, which keeps fastify from sending another answer for its undefined.
      const handled = handler(request, reply);
      if (handled instanceof Promise) return handled.then(() => reply);
    },
  });
  if (upgrade) registerUpgrade(app, url, upgrade.operation, upgrade.context);
}

function answerOptions(request: FastifyRequest, reply: FastifyReply, allow: string, allowedOrigin: (o: string | undefined) => boolean) {
  reply.header('Allow', allow);
  if (allowedOrigin(request.headers.origin) && request.headers['access-control-request-method']) {
    reply.header('Access-Control-Allow-Methods', allow);
    const headers = request.headers['access-control-request-headers'];
    if (headers) reply.header('Access-Control-Allow-Headers', headers);
  }
  reply.code(204).send();
}

/** The handler of a declared HTTP operation: parse, call, answer. */
export function operationHandler(operation: Extract<Operation, { kind: 'http' }>, context: RouteContext): MethodHandler {
  return (request, reply) => {
    const dialect = requestDialect(request);
    const params = dialect.incoming(parseParameters(operation.parameters, requestSources(request)));
    const result = operation.handler(callContext(context, params, dialect));
    const send = (answer: ApiResult) => sendResult(reply, answer, (body) => dialect.outgoing(body, operation.responseClass));
    if (result instanceof Promise) return result.then(send);
    send(result);
  };
}

/** What a call of an operation is given; one literal, so every call's context has the same shape. */
function callContext(context: RouteContext, params: RawParamValues, dialect: Dialect): ApiCall<RawParamValues> {
  return { core: context.core, log: context.log, apiRoot: context.apiRoot, snapshotJson: context.snapshotJson, params, dialect };
}

/** Fastify's own type for JSON answers, so a serialised answer is labelled as a serialised object would be. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `outgoing` writes a body in the caller's dialect (a serialised `json` answer already is). */
function sendResult(reply: FastifyReply, result: ApiResult, outgoing: (body: unknown) => unknown): void {
  switch (result.status) {
    case 200:
      if ('json' in result) {
        reply.code(200).type(JSON_CONTENT_TYPE).send(result.json);
        return;
      }
      if (result.contentType !== undefined) reply.type(result.contentType);
      reply.code(200).send(outgoing(result.body));
      return;
    case 201:
      reply.code(201).header('Location', result.location).send(outgoing(result.body));
      return;
    default:
      reply.code(result.status).send();
  }
}

/**
 * The WebSocket route: everything that can refuse the connection (parameters, application names,
 * subprotocol) runs in preHandler, before the 101, so that a refusal is an ordinary HTTP answer.
 */
function registerUpgrade(
  app: FastifyInstance,
  url: string,
  operation: Extract<Operation, { kind: 'websocket' }>,
  context: RouteContext,
): void {
  const sessions = new WeakMap<object, WebSocketSession>();
  app.route({
    method: 'GET',
    url,
    preHandler: async (request) => {
      if (!request.ws) return;
      const offered = request.headers['sec-websocket-protocol'];
      if (offered !== undefined && !offered.split(',').some((p) => p.trim() === operation.websocketProtocol)) {
        throw new ApiError(400, `Unsupported WebSocket subprotocol; use ${operation.websocketProtocol}`);
      }
      const dialect = requestDialect(request);
      const params = dialect.incoming(parseParameters(operation.parameters, requestSources(request)));
      const session = await operation.open(callContext(context, params, dialect));
      sessions.set(request.raw, session);
      // The client may have gone while the session was being opened (a store round trip).
      if (request.raw.socket.destroyed) session.abandon();
      else request.raw.socket.once('close', () => session.abandon());
    },
    handler: () => {
      throw new ApiError(426, 'WebSocket upgrade required', { Upgrade: 'websocket' });
    },
    wsHandler: (socket, request) => {
      const session = sessions.get(request.raw);
      sessions.delete(request.raw);
      const apiKey = (request.query as Record<string, string | undefined>).api_key;
      const credentials = credentialsFrom(request.headers.authorization, apiKey);
      const address = request.socket.remoteAddress;
      const peer = address !== undefined ? { remoteAddress: address } : {};
      if (session)
        session.attach(socket, {
          // From the client's address, so the user's ACL and the login limits see the real peer.
          inject: (options) => request.server.inject({ ...peer, ...options }),
          apiRoot: context.apiRoot,
          credentials,
          stream: request.raw.socket,
        });
      else socket.terminate();
    },
  });
}
