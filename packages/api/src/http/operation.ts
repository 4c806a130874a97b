/**
 * Operations and resources as declared by src/resources/*. An operation is written once with
 * `defineOperation` (or `defineWebSocketOperation`): its parameters type the handler, drive request
 * validation, and are published in the api-docs unchanged.
 */
import type { Logger, SwitchboardCore } from '@switchboard/core';
import type { Duplex } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { WebSocket } from 'ws';
import type { Dialect } from '../dialect/dialect.js';
import type { Credentials } from './auth.js';
import type { SnapshotJson } from './snapshot-json.js';
import type { ErrorResponseDecl, ModelDecl, ParameterDecl, ParamValues, RawParamValues } from '../swagger/types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a handler gets: its parsed parameters and the object model. */
export interface ApiCall<V> {
  readonly params: V;
  readonly core: SwitchboardCore;
  readonly log: Logger;
  /** `<prefix>/ari`, for Location headers. */
  readonly apiRoot: string;
  /** The naming of the caller: events sent on a connection are written in it. */
  readonly dialect: Dialect;
  /** Answer bodies of snapshots, kept between requests (snapshot-json.ts). */
  readonly snapshotJson: SnapshotJson;
}

export type ApiResult =
  /** `contentType` set: `body` is the raw bytes of a file (a stored recording), sent as they are. */
  | { readonly status: 200; readonly body: unknown; readonly contentType?: string }
  /** An answer already serialised in the caller's dialect (snapshot-json.ts): sent as it is. */
  | { readonly status: 200; readonly json: Buffer }
  | { readonly status: 201; readonly body: unknown; readonly location: string }
  | { readonly status: 202 | 204 };

export const ok = (body: unknown): ApiResult => ({ status: 200, body });
export const okJson = (json: Buffer): ApiResult => ({ status: 200, json });
export const okBinary = (body: Buffer, contentType: string): ApiResult => ({ status: 200, body, contentType });
export const created = (location: string, body: unknown): ApiResult => ({ status: 201, body, location });
export const noContent = (): ApiResult => ({ status: 204 });

interface OperationFields<Ps extends readonly ParameterDecl[]> {
  readonly httpMethod: HttpMethod;
  /** The client method name (ari-client exposes `client.<resource>.<nickname>()`). */
  readonly nickname: string;
  readonly summary: string;
  readonly notes?: string;
  readonly responseClass: string;
  readonly since?: readonly string[];
  readonly parameters: Ps;
  /** Every non-success status the operation can answer with (a route test enforces it). */
  readonly errorResponses: readonly ErrorResponseDecl[];
}

export interface HttpOperationDecl<Ps extends readonly ParameterDecl[]> extends OperationFields<Ps> {
  handler(call: ApiCall<ParamValues<Ps>>): ApiResult | Promise<ApiResult>;
}

/**
 * What a session may use of the request that opened it, to answer requests sent on the socket
 * (REST over WebSocket): the routes themselves and the credentials of the upgrade.
 */
export interface UpgradeContext {
  readonly inject: (options: InjectOptions) => Promise<LightMyRequestResponse>;
  /** `<prefix>/ari` */
  readonly apiRoot: string;
  readonly credentials: Credentials | undefined;
  /**
   * The byte stream under the WebSocket (the upgrade's TCP or TLS socket). Events raised in one
   * step (a hangup raises several) are written to it corked, so they leave in one write.
   */
  readonly stream?: Pick<Duplex, 'cork' | 'uncork'>;
}

/**
 * A WebSocket session prepared before the upgrade, so that any refusal is still an HTTP answer
 * (reference README §7) and nothing raised in between is lost.
 */
export interface WebSocketSession {
  /** The upgrade completed. */
  attach(socket: WebSocket, upgrade?: UpgradeContext): void;
  /** The upgrade did not happen (the client went away or the handshake failed). */
  abandon(): void;
}

export interface WebSocketOperationDecl<Ps extends readonly ParameterDecl[]> extends OperationFields<Ps> {
  readonly upgrade: 'websocket';
  readonly websocketProtocol: string;
  /** Runs before the upgrade; throwing (or rejecting) refuses it with an HTTP error. */
  open(call: ApiCall<ParamValues<Ps>>): WebSocketSession | Promise<WebSocketSession>;
}

/** The type-erased form the router and the generator work with. */
export type Operation =
  | (OperationFields<readonly ParameterDecl[]> & {
      readonly kind: 'http';
      handler(call: ApiCall<RawParamValues>): ApiResult | Promise<ApiResult>;
    })
  | (OperationFields<readonly ParameterDecl[]> & {
      readonly kind: 'websocket';
      readonly upgrade: 'websocket';
      readonly websocketProtocol: string;
      open(call: ApiCall<RawParamValues>): WebSocketSession | Promise<WebSocketSession>;
    });

/*
 * The casts below are sound by construction: the router only ever hands a handler the values that
 * params.ts produced from this same parameter list, which is what ParamValues<Ps> describes.
 */
export function defineOperation<const Ps extends readonly ParameterDecl[]>(decl: HttpOperationDecl<Ps>): Operation {
  const handler = decl.handler as (call: ApiCall<RawParamValues>) => ApiResult | Promise<ApiResult>;
  return { ...decl, kind: 'http', handler };
}

export function defineWebSocketOperation<const Ps extends readonly ParameterDecl[]>(decl: WebSocketOperationDecl<Ps>): Operation {
  const open = decl.open as (call: ApiCall<RawParamValues>) => WebSocketSession | Promise<WebSocketSession>;
  return { ...decl, kind: 'websocket', open };
}

/** One path and the operations on it (a swagger `apis[]` entry). */
export interface ApiDecl {
  /** Relative to `/ari`, with `{param}` segments: `/channels/{channelId}/play`. */
  readonly path: string;
  readonly description: string;
  readonly operations: readonly Operation[];
}

/** One resource document (`/api-docs/<name>.json`) and its listing entry. */
export interface ResourceDecl {
  readonly name: string;
  /** The listing's description of the resource (SPEC §2.1). */
  readonly description: string;
  /** events.json is swagger 1.2 because it uses `subTypes`/`discriminator`. */
  readonly swaggerVersion: '1.1' | '1.2';
  readonly since?: readonly string[];
  readonly requiresModules?: readonly string[];
  readonly apis: readonly ApiDecl[];
  readonly models: readonly ModelDecl[];
}
