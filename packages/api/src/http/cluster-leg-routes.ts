/**
 * Node-to-node routes for media legs between a bridge of one node and a channel of another
 * (core's cluster-media-legs.ts), and the HTTP client the nodes ask each other with. Outside `/ari`
 * (not part of the control API, not in its api-docs); only the cluster secret opens them.
 *
 *   POST   <prefix>/cluster/legs                {channelId, address, port, node} → {address, port, channel, application}
 *   DELETE <prefix>/cluster/legs/<channelId>    the other end of the leg is gone
 */
import type { AttachAnswer, AttachRequest, ClusterLegTransport, ClusterNodeConfig, ClusterView, SwitchboardCore } from '@switchboard/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';
import { JsonBody } from './body.js';
import { CLUSTER_SECRET_HEADER } from './cluster-forwarding.js';
import { toHttpError } from './error-handler.js';

/** Making a leg is a few media commands; a node slower than this is treated as gone. */
const LEG_TIMEOUT_MS = 5000;

/** `login` checks the node's cluster secret as a login (LoginGuard.peerLogin) and throws when it is wrong. */
export function registerClusterLegRoutes(
  app: FastifyInstance,
  prefix: string,
  core: SwitchboardCore,
  login: (request: FastifyRequest) => void,
): void {
  const cluster = core.cluster;
  const legs = core.clusterMedia;
  if (!cluster || !legs) return;
  legs.setTransport(new HttpLegTransport(cluster));
  const guarded = (run: (request: FastifyRequest) => Promise<unknown>) => async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      login(request);
      const body = await run(request);
      if (body === undefined) reply.code(204).send();
      else reply.code(200).send(body);
    } catch (err) {
      const answer = toHttpError(err);
      reply.code(answer.status).send({ message: answer.message });
    }
  };
  app.post(
    `${prefix}/cluster/legs`,
    guarded(async (request) => legs.attach(attachRequest(request.body))),
  );
  app.delete(
    `${prefix}/cluster/legs/:channelId`,
    guarded(async (request) => {
      await legs.detach((request.params as { channelId: string }).channelId);
      return undefined;
    }),
  );
}

function attachRequest(body: unknown): AttachRequest {
  const value = body instanceof JsonBody ? (body.value as Partial<AttachRequest> | null) : undefined;
  const { channelId, address, port, node } = value ?? {};
  if (typeof channelId !== 'string' || typeof address !== 'string' || typeof node !== 'string' || !Number.isInteger(port)) {
    throw new ApiError(400, 'channelId, address, port and node are required');
  }
  return { channelId, address, port: port as number, node };
}

/** `http://h:p/x/ari` → `http://h:p/x`: the node's HTTP prefix, where these routes are. */
const rootOf = (node: ClusterNodeConfig) => node.ari.replace(/\/ari$/, '');

class HttpLegTransport implements ClusterLegTransport {
  readonly #cluster: ClusterView;

  constructor(cluster: ClusterView) {
    this.#cluster = cluster;
  }

  async attach(owner: ClusterNodeConfig, request: AttachRequest): Promise<AttachAnswer> {
    const answer = await this.#ask(owner, 'POST', '/cluster/legs', JSON.stringify(request)).catch(() => {
      throw new ApiError(400, 'Channel not found');
    });
    const body = (await answer.json().catch(() => ({}))) as Partial<AttachAnswer> & { message?: string };
    if (!answer.ok) throw new ApiError(answer.status, body.message ?? 'Channel not found');
    if (typeof body.address !== 'string' || typeof body.port !== 'number' || !body.channel || typeof body.application !== 'string') {
      throw new Error('the node owning the channel gave an unusable answer to a leg request');
    }
    return body as AttachAnswer;
  }

  async detach(node: ClusterNodeConfig, channelId: string): Promise<void> {
    await this.#ask(node, 'DELETE', `/cluster/legs/${encodeURIComponent(channelId)}`);
  }

  #ask(node: ClusterNodeConfig, method: string, path: string, body?: string): Promise<Response> {
    return fetch(`${rootOf(node)}${path}`, {
      method,
      headers: { [CLUSTER_SECRET_HEADER]: this.#cluster.secret, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(LEG_TIMEOUT_MS),
    });
  }
}
