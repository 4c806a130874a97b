/**
 * A bridge of one node holding channels of other nodes: each such channel joins through a media leg
 * between the two nodes' engines (plain RTP, PCMU), and the bridge holds a stand-in channel with the
 * original channel's id, so the application sees that id in the bridge and its events.
 *
 *   node 2: phone B ── leg B ─┐ media bridge            node 1 (the bridge's node)
 *                             └─ leg ═══ RTP ═══ leg ── stand-in "B" ─┐ bridge
 *   node 3: phone A ── leg A ─┐ media bridge                          │ (ARI)
 *                             └─ leg ═══ RTP ═══ leg ── stand-in "A" ─┘
 *
 * The bridge's node asks the owner (ClusterLegTransport, HTTP with the cluster secret) to attach:
 * the owner makes a leg sending to the bridge node's leg and joins it with the channel's leg in a
 * media-only bridge (no ARI bridge, so no events of its own). Either end going away ends the other:
 * the channel hanging up on its node detaches the stand-in; the stand-in leaving the bridge (or the
 * bridge ending) detaches the owner's leg. Stand-ins are `Cluster/<node>-<id>` channels; they are
 * not in the object directory (the owner is) and requests naming their id are forwarded to the owner.
 */
import { randomBytes } from 'node:crypto';
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Bridge } from '../bridges/bridge.js';
import type { AddChannelOptions, BridgeRegistry } from '../bridges/bridge-registry.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import type { ClusterNodeConfig } from '../config/types.js';
import { MediaLegTechnology } from '../drivers/media-leg-technology.js';
import { notFound, unprocessable } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { CodecBinding, LegRemote, MediaEngine } from '../media/media-engine.js';
import { CAUSE_NETWORK_OUT_OF_ORDER } from '../media/worker-failure.js';
import type { ChannelSnapshot } from '../model/snapshots.js';
import type { Logger } from '../util/logger.js';

/** The technology of stand-in channels. */
export const CLUSTER_TECHNOLOGY = 'Cluster';

/** Longer than a move between two bridges takes (a few media commands). */
const MOVE_GRACE_MS = 1000;

/** RFC 3551 static payload type 0: every node decodes it, so no negotiation is needed. */
const LEG_CODEC: CodecBinding = { name: 'PCMU', payloadType: 0, clockRate: 8000 };

/**
 * RFC 4733 telephone-events on both legs (the payload type every node uses for them): a digit a
 * phone sends reaches the far phones through the bridge, as within one node.
 */
const LEG_TELEPHONE_EVENT_PT = 101;

/** Where a leg sends: the other node's leg, in PCMU, with telephone-events. */
function legRemote(address: string, port: number): LegRemote {
  return { address, port, codec: LEG_CODEC, telephoneEventPayloadType: LEG_TELEPHONE_EVENT_PT };
}

export interface AttachRequest {
  channelId: string;
  /** The bridge node's leg, where the owner sends. */
  address: string;
  port: number;
  /** The bridge node's name (told when the channel goes). */
  node: string;
}

export interface AttachAnswer {
  address: string;
  port: number;
  channel: ChannelSnapshot;
  application: string;
}

/** How nodes ask each other (implemented by the control API over HTTP). */
export interface ClusterLegTransport {
  attach(owner: ClusterNodeConfig, request: AttachRequest): Promise<AttachAnswer>;
  /** Tells `node` the leg of `channelId` is over (the owner's channel or the bridge's stand-in went). */
  detach(node: ClusterNodeConfig, channelId: string): Promise<void>;
}

interface OwnedLeg {
  legId: string;
  mediaBridgeId: string;
  bridgeNode: string;
}

export interface ClusterMediaLegsDeps {
  nodeName: string;
  /** This node's address as the other nodes reach it (the host of its API root). */
  address: string;
  peers: readonly ClusterNodeConfig[];
  channels: ChannelRegistry;
  bridges: BridgeRegistry;
  applications: ApplicationRegistry;
  media: MediaEngine;
  bus: EventBus;
  log: Logger;
}

export class ClusterMediaLegs {
  readonly #deps: ClusterMediaLegsDeps;
  #transport: ClusterLegTransport | undefined;
  /** Owner side: the legs of this node's channels joined to other nodes' bridges. */
  readonly #owned = new Map<string, OwnedLeg>();
  /** Bridge side: stand-ins whose owner is gone, so their end is not told to it. */
  readonly #ownerGone = new Set<string>();

  constructor(deps: ClusterMediaLegsDeps) {
    this.#deps = deps;
    deps.bus.subscribe((event) => {
      // A stand-in taken out of its bridge (or left by a bridge that ended) has no purpose: it goes,
      // unless it was moving to another bridge of this node (it leaves one before entering the other).
      if (event.type === 'ChannelLeftBridge' && isStandIn(event.channel)) {
        const id = event.channel.id;
        setTimeout(() => {
          const standIn = deps.channels.get(id);
          if (standIn?.technology === CLUSTER_TECHNOLOGY && !deps.bridges.bridgeOf(id)) void standIn.hangup();
        }, MOVE_GRACE_MS).unref();
      }
      // A channel is in one bridge at a time: entering one of its own node leaves the other node's.
      if (event.type === 'ChannelEnteredBridge' && !isStandIn(event.channel) && this.#owned.has(event.channel.id)) {
        void this.#leaveRemoteBridge(event.channel.id);
      }
    });
  }

  setTransport(transport: ClusterLegTransport): void {
    this.#transport = transport;
  }

  /** Bridge side: `channelId` (owned by `owner`) joins `bridge` through a leg between the nodes. */
  async join(bridge: Bridge, channelId: string, owner: ClusterNodeConfig, options: AddChannelOptions): Promise<void> {
    const { media, channels, bridges, log } = this.#deps;
    const transport = this.#transport;
    if (!transport) throw unprocessable('Channels of other nodes cannot join this bridge');
    const leg = await media.createLeg({ bindAddress: this.#deps.address });
    let answer: AttachAnswer;
    try {
      answer = await transport.attach(owner, { channelId, address: this.#deps.address, port: leg.localPort, node: this.#deps.nodeName });
      await media.setLegRemote(leg.legId, legRemote(answer.address, answer.port));
    } catch (err) {
      await media.destroyLeg(leg.legId).catch(() => undefined);
      throw err;
    }
    const tech = new MediaLegTechnology(leg.legId, media, async () => {
      if (!this.#ownerGone.delete(channelId)) {
        transport
          .detach(owner, channelId)
          .catch((err: unknown) => log.warn({ err, channelId, node: owner.name }, 'could not end the leg on the owner'));
      }
      await media.destroyLeg(leg.legId);
    });
    const original = answer.channel;
    const standIn = channels.create({
      id: channelId,
      name: `${CLUSTER_TECHNOLOGY}/${owner.name}-${randomBytes(4).toString('hex')}`,
      technology: CLUSTER_TECHNOLOGY,
      endpoint: owner.name,
      direction: 'inbound',
      state: 'Up',
      caller: original.caller,
      language: original.language,
      dialplan: { context: original.dialplan.context, exten: original.dialplan.exten, priority: original.dialplan.priority },
      tech,
      snapshotVariables: [],
    });
    standIn.application = answer.application;
    try {
      await bridges.addChannels(bridge, [standIn], options);
    } catch (err) {
      await standIn.hangup();
      throw err;
    }
  }

  /** Owner side: joins this node's channel with a new leg sending to the bridge node's leg. */
  async attach(request: AttachRequest): Promise<AttachAnswer> {
    const { media, channels, log } = this.#deps;
    const channel = channels.get(request.channelId);
    if (!channel || channel.technology === CLUSTER_TECHNOLOGY) throw notFound('Channel not found');
    const channelLeg = channel.tech.mediaLegId;
    if (channelLeg === undefined) throw unprocessable('Channel has no media');
    if (channel.application === undefined) throw unprocessable('Channel not in an application');
    const bridgeNode = this.#deps.peers.find((p) => p.name === request.node);
    if (!bridgeNode) throw notFound(`Node ${request.node} is not in [cluster]`);
    // Moved, as ARI moves a channel between bridges: out of its bridge here, or another node's.
    await this.#leaveRemoteBridge(request.channelId);
    const local = this.#deps.bridges.bridgeOf(channel.id);
    if (local) await this.#deps.bridges.removeChannels(local, [channel]);
    const leg = await media.createLeg({ bindAddress: this.#deps.address });
    const mediaBridgeId = `cluster-${randomBytes(6).toString('hex')}`;
    try {
      await media.setLegRemote(leg.legId, legRemote(request.address, request.port));
      await media.createBridge({ bridgeId: mediaBridgeId, kind: 'mixing' });
      await media.joinBridge(mediaBridgeId, channelLeg);
      await media.joinBridge(mediaBridgeId, leg.legId);
    } catch (err) {
      await media.destroyBridge(mediaBridgeId).catch(() => undefined);
      await media.destroyLeg(leg.legId).catch(() => undefined);
      throw err;
    }
    this.#owned.set(request.channelId, { legId: leg.legId, mediaBridgeId, bridgeNode: bridgeNode.name });
    channel.onHangup(() => {
      if (!this.#owned.has(channel.id)) return;
      void this.#release(channel.id);
      this.#transport?.detach(bridgeNode, channel.id).catch((err: unknown) => {
        log.warn({ err, channelId: channel.id, node: bridgeNode.name }, 'could not end the stand-in on the bridge node');
      });
    });
    return { address: this.#deps.address, port: leg.localPort, channel: channel.snapshot(), application: channel.application };
  }

  /** Either side: the other node says the leg of `channelId` is over. */
  async detach(channelId: string): Promise<void> {
    const standIn = this.#deps.channels.get(channelId);
    if (standIn?.technology === CLUSTER_TECHNOLOGY) {
      await standIn.hangup();
      return;
    }
    await this.#release(channelId);
  }

  /**
   * Either side: node `name` is gone (its heartbeat stopped, or it started again). The stand-ins of
   * its channels leave their bridges and hang up, as its channels did (cause 38, network out of
   * order); this node's legs toward its bridges are freed (the channels stay up, out of them).
   */
  async nodeDown(name: string): Promise<void> {
    const { channels, log } = this.#deps;
    const standIns = channels.list().filter((c) => c.technology === CLUSTER_TECHNOLOGY && c.endpoint === name);
    for (const standIn of standIns) {
      this.#ownerGone.add(standIn.id);
      // Its owner will never send the channel's end: the application hears the stand-in's instead.
      if (standIn.application === undefined) continue;
      try {
        this.#deps.applications.subscribe(standIn.application, 'channel', standIn.id);
      } catch {
        // Its application is not served here (any more): nobody is waiting for the channel's end.
      }
    }
    const owned = [...this.#owned].filter(([, leg]) => leg.bridgeNode === name).map(([channelId]) => channelId);
    if (standIns.length > 0 || owned.length > 0) {
      log.warn({ node: name, standIns: standIns.length, legs: owned.length }, 'ending the bridge legs of a node that is gone');
    }
    await Promise.allSettled([
      ...standIns.map((standIn) => standIn.hangup(CAUSE_NETWORK_OUT_OF_ORDER)),
      ...owned.map((channelId) => this.#release(channelId)),
    ]);
  }

  /** Ends this node's leg of `channelId` and tells the bridge's node to let its stand-in go. */
  async #leaveRemoteBridge(channelId: string): Promise<void> {
    const owned = this.#owned.get(channelId);
    if (!owned) return;
    await this.#release(channelId);
    const bridgeNode = this.#deps.peers.find((p) => p.name === owned.bridgeNode);
    if (!bridgeNode) return;
    await this.#transport?.detach(bridgeNode, channelId).catch((err: unknown) => {
      this.#deps.log.warn({ err, channelId, node: bridgeNode.name }, 'could not end the stand-in on the bridge node');
    });
  }

  async #release(channelId: string): Promise<void> {
    const owned = this.#owned.get(channelId);
    if (!owned) return;
    this.#owned.delete(channelId);
    const { media } = this.#deps;
    await media.destroyBridge(owned.mediaBridgeId).catch(() => undefined);
    await media.destroyLeg(owned.legId).catch(() => undefined);
  }
}

export function isStandIn(channel: Pick<ChannelSnapshot, 'name'>): boolean {
  return channel.name.startsWith(`${CLUSTER_TECHNOLOGY}/`);
}
