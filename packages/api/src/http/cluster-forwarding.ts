/**
 * REST requests on another node's object (a cluster: core's ClusterView). A request naming a
 * channel, bridge, playback or live recording this node does not have is looked up in the
 * cluster's directory and, when another node owns it, sent to that node's API; its status, type
 * and body are answered unchanged.
 *
 *   app ──► node 1 ── not here; directory: node 3 ──► node 3 /ari/… (x-switchboard-cluster-secret)
 *       ◄── status + body unchanged ◄──────────────────────┘
 *
 * Rules that keep it bounded: a forwarded request is authenticated by the cluster's shared secret
 * alone (a user's password is never sent on: `api_key` is dropped from the query) and is never
 * forwarded again; each forward has a deadline; a node that does not answer (gone) is answered
 * 404 for the object, as for a channel that has just gone. `GET /channels` and `GET /bridges`
 * add the other nodes' lists (each asked with a short deadline; a silent node adds nothing).
 */
import {
  type ApiDialect,
  CLUSTER_TECHNOLOGY,
  type ClusterNodeConfig,
  type ClusterObjectKind,
  type ClusterView,
  type SwitchboardCore,
} from '@switchboard/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ALL_DIALECTS } from '../dialect/dialect.js';
import { ApiError } from './api-error.js';
import { FormBody, JsonBody } from './body.js';

export const CLUSTER_SECRET_HEADER = 'x-switchboard-cluster-secret';
/** The dialect of the user the forwarding node authenticated: answers are written in it. */
export const CLUSTER_DIALECT_HEADER = 'x-switchboard-dialect';

/** A forwarded request's deadline: longer than any operation's own work, short of a client's patience. */
const FORWARD_TIMEOUT_MS = 5000;
/** Each other node's part of a cluster-wide list. */
const LIST_TIMEOUT_MS = 2000;

const forwarded = new WeakSet<object>();

/** The path parameter naming an object, by kind (route patterns are `/ari/channels/:channelId/…`). */
const OBJECT_PARAMS: readonly { param: string; kind: ClusterObjectKind; notFound: string; under?: string }[] = [
  { param: 'channelId', kind: 'channel', notFound: 'Channel not found' },
  { param: 'bridgeId', kind: 'bridge', notFound: 'Bridge not found' },
  { param: 'playbackId', kind: 'playback', notFound: 'Playback not found' },
  { param: 'recordingName', kind: 'recording', notFound: 'Recording not found', under: '/recordings/live/' },
];

/**
 * Recognises a request another node forwarded: it carries the cluster secret (the dialect it names
 * is returned); `login` checks it (LoginGuard.peerLogin: a wrong one is a failed login). Undefined
 * for requests of clients, which log in as usual, and on a node without [cluster].
 */
export function peerRequest(
  cluster: ClusterView | undefined,
  request: FastifyRequest,
  login: (given: unknown, secret: string) => void,
): { dialect: ApiDialect } | undefined {
  const secret = request.headers[CLUSTER_SECRET_HEADER];
  // A node of its own knows no peers: the header means nothing there and the user logs in as usual.
  if (secret === undefined || !cluster) return undefined;
  login(secret, cluster.secret);
  forwarded.add(request.raw);
  const named = request.headers[CLUSTER_DIALECT_HEADER];
  const dialect = ALL_DIALECTS.find((d) => d === named) ?? 'switchboard';
  return { dialect };
}

/** preHandler: sends the request to the node owning its object, when that is another node. */
export async function forwardToOwner(
  core: SwitchboardCore,
  apiRoot: string,
  dialect: ApiDialect,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const cluster = core.cluster;
  if (!cluster || forwarded.has(request.raw)) return false;
  const target = namedObject(request);
  if (!target || isHere(core, target.kind, target.id)) return false;
  let owner: ClusterNodeConfig | undefined;
  try {
    owner = await cluster.ownerOf(target.kind, target.id);
  } catch {
    // The directory cannot be read: the object is answered for as this node sees it.
    return false;
  }
  if (!owner) return false;
  const suffix = withoutApiKey(request.url.slice(apiRoot.length));
  const headers: Record<string, string> = { [CLUSTER_SECRET_HEADER]: cluster.secret, [CLUSTER_DIALECT_HEADER]: dialect };
  const body = bodyText(request.body);
  if (body) headers['content-type'] = body.type;
  let answer: Response;
  let payload: Buffer;
  try {
    answer = await fetch(`${owner.ari}${suffix}`, {
      method: request.method,
      headers,
      ...(body ? { body: body.text } : {}),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    payload = Buffer.from(await answer.arrayBuffer());
  } catch {
    throw new ApiError(404, target.notFound);
  }
  reply.code(answer.status);
  for (const name of ['content-type', 'location', 'allow']) {
    const value = answer.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  reply.send(payload);
  return true;
}

/** onSend of `GET /channels` and `GET /bridges`: this node's list followed by the other nodes'. */
export async function withPeerLists(
  core: SwitchboardCore,
  apiRoot: string,
  dialect: ApiDialect,
  request: FastifyRequest,
  payload: unknown,
): Promise<unknown> {
  const cluster = core.cluster;
  if (!cluster || forwarded.has(request.raw) || request.method !== 'GET') return payload;
  const route = request.routeOptions.url;
  if (route !== `${apiRoot}/channels` && route !== `${apiRoot}/bridges`) return payload;
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined) return payload;
  let local: unknown;
  try {
    local = JSON.parse(text);
  } catch {
    return payload;
  }
  if (!Array.isArray(local)) return payload;
  const suffix = route.slice(apiRoot.length);
  const others = await Promise.all(
    cluster.peers.map(async (peer) => {
      try {
        const answer = await fetch(`${peer.ari}${suffix}`, {
          headers: { [CLUSTER_SECRET_HEADER]: cluster.secret, [CLUSTER_DIALECT_HEADER]: dialect },
          signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
        });
        const list: unknown = await answer.json();
        return answer.ok && Array.isArray(list) ? list : [];
      } catch {
        return [];
      }
    }),
  );
  return JSON.stringify([...local, ...others.flat()]);
}

function namedObject(request: FastifyRequest): { kind: ClusterObjectKind; id: string; notFound: string } | undefined {
  const params = request.params as Record<string, string | undefined> | undefined;
  const route = request.routeOptions.url ?? '';
  for (const { param, kind, notFound, under } of OBJECT_PARAMS) {
    const id = params?.[param];
    if (id !== undefined && id !== '' && (under === undefined || route.includes(under))) return { kind, id, notFound };
  }
  return undefined;
}

function isHere(core: SwitchboardCore, kind: ClusterObjectKind, id: string): boolean {
  try {
    switch (kind) {
      case 'channel': {
        // A stand-in of another node's channel in a bridge here is not that channel: its owner answers.
        const channel = core.channels.get(id);
        return channel !== undefined && channel.technology !== CLUSTER_TECHNOLOGY;
      }
      case 'bridge':
        return core.bridges.get(id) !== undefined;
      case 'playback':
        return core.playbacks.get(id) !== undefined;
      case 'recording':
        return core.recordings.getLive(id) !== undefined;
    }
  } catch {
    return false;
  }
}

/** `?api_key=user:secret&x=1` → `?x=1`: the other node trusts the cluster secret, not the user's. */
function withoutApiKey(pathAndQuery: string): string {
  const at = pathAndQuery.indexOf('?');
  if (at < 0) return pathAndQuery;
  const query = new URLSearchParams(pathAndQuery.slice(at + 1));
  query.delete('api_key');
  const rest = query.toString();
  return pathAndQuery.slice(0, at) + (rest === '' ? '' : `?${rest}`);
}

function bodyText(body: unknown): { type: string; text: string } | undefined {
  if (body instanceof JsonBody) return { type: 'application/json', text: JSON.stringify(body.value) };
  if (body instanceof FormBody) return { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(body.fields).toString() };
  return undefined;
}
