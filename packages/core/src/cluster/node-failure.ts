/**
 * What a node does when another node of its cluster dies (store/postgres/node-liveness.ts finds it
 * by its heartbeat and clears its directory rows and application claims in the store): every
 * surviving node drops what it holds of the dead one.
 *
 *   heartbeat older than [cluster] node_timeout ──► one survivor clears cluster_objects and
 *   application_claims, notifies ──► every node: stand-ins of its channels leave their bridges
 *   (ChannelLeftBridge, then the hangup events), legs toward its bridges are freed, and the
 *   endpoint device states it announced are forgotten.
 */
import type { DeviceStateRegistry } from '../device-states/device-state-registry.js';
import type { NodeLiveness } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import type { ClusterMediaLegs } from './cluster-media-legs.js';

export interface NodeFailureDeps {
  liveness: NodeLiveness;
  nodeName: string;
  timeoutMs: number;
  legs: ClusterMediaLegs | undefined;
  deviceStates: DeviceStateRegistry;
  log: Logger;
}

/** Starts this node's heartbeat and the handling of other nodes' deaths. */
export function watchNodeFailures(deps: NodeFailureDeps): void {
  const { liveness, log } = deps;
  liveness.onNodeDown((node) => {
    deps.deviceStates.forgetNode(node.storeId);
    deps.legs
      ?.nodeDown(node.name)
      .catch((err: unknown) => log.error({ err, node: node.name }, 'could not end the legs of a node that is gone'));
  });
  liveness.start(deps.nodeName, deps.timeoutMs).catch((err: unknown) => log.error({ err }, 'could not start the cluster heartbeat'));
}
