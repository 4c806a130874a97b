/**
 * Which node owns each channel, bridge, playback and live recording of a cluster.
 *
 * A shared directory (a store table: ClusterDirectory), not ids that name their node: channels,
 * bridges, playbacks and snoops may be given ids by the application (DESIGN: "Identifiers may be
 * chosen by the caller"), and such an id carries nothing of the node that made it. A row is written
 * when the object's creation event is raised and removed with its end event, on the store's
 * ordered cluster connection, so a node told of an object through another node's event (which is
 * sent after the row) always finds its owner. For that the core subscribes this to the event bus
 * before the applications' router, so the row is queued before the event that names the object.
 *
 * Only nodes with a [cluster] section record anything; a node of its own (SQLite) has no directory.
 */
import type { ClusterConfig, ClusterNodeConfig } from '../config/types.js';
import { isStandIn } from './cluster-media-legs.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import type { EventBus } from '../events/event-bus.js';
import type { ClusterDirectory, ClusterObjectKind } from '../store/types.js';
import type { Logger } from '../util/logger.js';

/** What the control API needs to forward a request to the node owning its object. */
export interface ClusterView {
  /** This node's `systemname`. */
  readonly nodeName: string;
  readonly secret: string;
  /** Every node but this one. */
  readonly peers: readonly ClusterNodeConfig[];
  /** The node owning an object this node does not have, if it is known and listed. */
  ownerOf(kind: ClusterObjectKind, id: string): Promise<ClusterNodeConfig | undefined>;
}

/** The directory change an event makes, if any. */
function directoryChange(event: TimedDomainEvent): { kind: ClusterObjectKind; id: string; present: boolean } | undefined {
  switch (event.type) {
    case 'ChannelCreated':
    case 'ChannelDestroyed':
      // A stand-in of another node's channel in a bridge here (cluster-media-legs.ts): its owner keeps the row.
      if (isStandIn(event.channel)) return undefined;
      break;
  }
  switch (event.type) {
    case 'ChannelCreated':
      return { kind: 'channel', id: event.channel.id, present: true };
    case 'ChannelDestroyed':
      return { kind: 'channel', id: event.channel.id, present: false };
    case 'BridgeCreated':
      return { kind: 'bridge', id: event.bridge.id, present: true };
    case 'BridgeDestroyed':
      return { kind: 'bridge', id: event.bridge.id, present: false };
    case 'PlaybackStarted':
      return { kind: 'playback', id: event.playback.id, present: true };
    case 'PlaybackFinished':
      return { kind: 'playback', id: event.playback.id, present: false };
    case 'RecordingStarted':
      return { kind: 'recording', id: event.recording.name, present: true };
    case 'RecordingFinished':
    case 'RecordingFailed':
      return { kind: 'recording', id: event.recording.name, present: false };
    default:
      return undefined;
  }
}

export class ObjectOwnership implements ClusterView {
  readonly nodeName: string;
  readonly secret: string;
  readonly peers: readonly ClusterNodeConfig[];
  readonly #directory: ClusterDirectory;

  constructor(config: ClusterConfig, nodeName: string, directory: ClusterDirectory, bus: EventBus, log: Logger) {
    this.nodeName = nodeName;
    this.secret = config.secret;
    this.peers = config.nodes.filter((n) => n.name !== nodeName);
    this.#directory = directory;
    if (!config.nodes.some((n) => n.name === nodeName)) {
      log.warn({ node: nodeName }, '[cluster] does not list this node (its systemname): other nodes cannot forward requests to it');
    }
    // Rows an earlier run of this node left (it was killed) are dropped before any new one is written.
    directory.forgetNode(nodeName).catch((err: unknown) => log.error({ err }, 'could not drop the objects of an earlier run'));
    bus.subscribe((event) => {
      const change = directoryChange(event);
      if (!change) return;
      if (change.present) directory.record(change.kind, change.id, nodeName);
      else directory.forget(change.kind, change.id);
    });
  }

  async ownerOf(kind: ClusterObjectKind, id: string): Promise<ClusterNodeConfig | undefined> {
    const node = await this.#directory.ownerOf(kind, id);
    if (node === undefined || node === this.nodeName) return undefined;
    return this.peers.find((n) => n.name === node);
  }
}
