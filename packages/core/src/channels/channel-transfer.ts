/**
 * A transfer the far end of an application's channel asks for (SIP REFER) when nothing else
 * serves it (the channel is not in a Dial() connection):
 *
 * - `PJSIP_TRANSFER_HANDLING` is `ari-only` (a variable, or the function
 *   `PJSIP_TRANSFER_HANDLING()`): the application decides, told by a ChannelTransfer event, and
 *   reports back through transfer_progress.
 * - otherwise a blind transfer of a channel in an application's bridge goes as operators know it:
 *   the transferee stays in the bridge; the transferer is replaced there by the first half of a
 *   Local channel pair (which enters the application with AppStart `replace_channel`) whose second
 *   half runs the target extension; BridgeBlindTransfer says so. The transferer is hung up if it
 *   has not hung up by itself TRANSFERER_HANGUP_MS after its phone heard the outcome.
 *
 * - an attended transfer (Replaces) between two bridges merges them (BridgeMerged): the parties
 *   the transferer talked to are now together in the first leg's bridge.
 *
 * Anything else is refused (the driver answers 603).
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { ChannelDriver, ChannelTechnologyEvents, TransferDecision, TransferRequestInfo } from '../drivers/channel-technology.js';
import type { EventBus } from '../events/event-bus.js';
import type { RequiredDestinationSnapshot } from '../events/domain-events.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import { runInApplication } from '../pbx/application-session.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import type { Channel } from './channel.js';
import type { ChannelRegistry } from './channel-registry.js';
import { CAUSE_NORMAL_CLEARING } from './hangup-causes.js';

export const TRANSFER_HANDLING_VARIABLE = 'PJSIP_TRANSFER_HANDLING';

export interface ChannelTransferDeps {
  bus: EventBus;
  bridges: BridgeRegistry;
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  dialplanRunner: DialplanRunner;
  driverFor(technology: string): ChannelDriver | undefined;
  snapshotVariables(): readonly string[];
  clock: Clock;
  log: Logger;
}

/** After a transfer the transferer is expected to hang up (RFC 5589 §6); after this we do. */
export const TRANSFERER_HANGUP_MS = 5000;

export class ChannelTransferService {
  readonly #deps: ChannelTransferDeps;

  constructor(deps: ChannelTransferDeps) {
    this.#deps = deps;
  }

  /** What becomes of a transfer the far end of `channel` asks for. */
  requested(channel: Channel, request: TransferRequestInfo): TransferDecision {
    if (channel.application === undefined || channel.isDestroyed) return { kind: 'refused' };
    if (channel.getVariable(TRANSFER_HANDLING_VARIABLE)?.trim().toLowerCase() === 'ari-only') {
      this.#publishChannelTransfer(channel, request);
      return { kind: 'application' };
    }
    if (request.kind === 'blind' && this.#deps.bridges.bridgeOf(channel.id) !== undefined) {
      return { kind: 'started', run: () => this.#blindThroughLocal(channel, request.destination, request.context) };
    }
    if (request.kind === 'attended') {
      const second = this.#deps.channels.list().find((c) => c.tech === request.replaced && !c.isDestroyed);
      const first = this.#deps.bridges.bridgeOf(channel.id);
      const other = second === undefined ? undefined : this.#deps.bridges.bridgeOf(second.id);
      // Only application bridges merge: a system bridge (Dial's) belongs to the call that made it.
      if (second !== undefined && first?.appOwned === true && other?.appOwned === true && first !== other) {
        return { kind: 'started', run: () => this.#mergeBridges(channel, second) };
      }
    }
    return { kind: 'refused' };
  }

  #publishChannelTransfer(channel: Channel, request: TransferRequestInfo): void {
    const { bridges, channels, bus } = this.#deps;
    const bridge = bridges.bridgeOf(channel.id);
    const connected = bridge === undefined ? undefined : otherParticipant(bridge.participants.values(), channel);
    const requested: RequiredDestinationSnapshot =
      request.kind === 'blind' ? { destination: request.destination } : { protocol_id: request.protocolId };
    const destination =
      request.kind === 'attended' && request.replaced !== undefined
        ? channels.list().find((c) => c.tech === request.replaced && !c.isDestroyed)
        : undefined;
    const destinationBridge = destination === undefined ? undefined : bridges.bridgeOf(destination.id);
    const destinationPeer =
      destinationBridge === undefined || destination === undefined
        ? undefined
        : otherParticipant(destinationBridge.participants.values(), destination);
    bus.publish({
      type: 'ChannelTransfer',
      refer_to: {
        requested_destination: requested,
        ...(destination !== undefined ? { destination_channel: destination.snapshot() } : {}),
        ...(destinationPeer !== undefined ? { connected_channel: destinationPeer.snapshot() } : {}),
        ...(destinationBridge !== undefined ? { bridge: destinationBridge.snapshot() } : {}),
      },
      referred_by: {
        source_channel: channel.snapshot(),
        ...(connected !== undefined ? { connected_channel: connected.snapshot() } : {}),
        ...(bridge !== undefined ? { bridge: bridge.snapshot() } : {}),
      },
    });
  }

  /** The transferer's place in its bridge goes to `Local/<exten>@<context>;1`. */
  async #blindThroughLocal(transferer: Channel, exten: string, context: string): Promise<{ ok: boolean; afterNotify?: () => void }> {
    const { bridges, channels, bus, log } = this.#deps;
    const bridge = bridges.bridgeOf(transferer.id);
    const application = transferer.application;
    const local = this.#deps.driverFor('Local');
    if (bridge === undefined || application === undefined || local?.prepareOutbound === undefined) return { ok: false };
    const transferees = [...bridge.participants.values()].map((p) => p.channel).filter((c) => c !== transferer);
    const call = local.prepareOutbound({ resource: `${exten}@${context}`, caller: { ...transferer.caller }, variables: {} });
    const replacement = channels.create({
      name: call.name,
      technology: local.technology,
      endpoint: call.endpoint,
      direction: 'outbound',
      state: 'Down',
      caller: { ...transferer.caller },
      language: transferer.language,
      dialplan: { context, exten, priority: 1 },
      tech: call.tech,
      snapshotVariables: this.#deps.snapshotVariables(),
    });
    const events: ChannelTechnologyEvents = {
      answered: () => replacement.setState('Up'),
      ringing: () => replacement.setState('Ringing'),
      hungUp: (cause) => replacement.remoteHangup(cause),
    };
    try {
      await call.dial(events, { timeoutSeconds: 0 });
    } catch (err) {
      log.warn({ err, exten, context }, 'blind transfer: the Local channel could not start');
      replacement.remoteHangup(CAUSE_NORMAL_CLEARING);
      return { ok: false };
    }
    void runInApplication(this.#deps, replacement, application, [], { replaceChannel: transferer }).catch((err: unknown) =>
      log.error({ err, channel: replacement.name }, 'transfer channel left its application badly'),
    );
    await bridges.addChannels(bridge, [replacement]);
    if (bridge.participants.has(transferer.id)) await bridges.removeChannels(bridge, [transferer]);
    log.info(
      { transferer: transferer.name, replacement: replacement.name, exten, context, bridge: bridge.id },
      'blind transfer in a bridge',
    );
    const [transferee] = transferees;
    bus.publish({
      type: 'BridgeBlindTransfer',
      channel: transferer.snapshot(),
      replace_channel: replacement.snapshot(),
      ...(transferees.length === 1 && transferee !== undefined ? { transferee: transferee.snapshot() } : {}),
      exten,
      context,
      result: 'Success',
      is_external: true,
      bridge: bridge.snapshot(),
    });
    return { ok: true, afterNotify: () => this.#hangUpLingering(transferer) };
  }

  /**
   * An attended transfer between two bridges (both of the transferer's legs are bridged with
   * other parties): the transferer's legs leave, the second leg's bridge is merged into the
   * first's (its participants move there; BridgeMerged), and the second leg is hung up, the
   * first once its phone heard the outcome (RFC 5589 §7).
   */
  async #mergeBridges(firstLeg: Channel, secondLeg: Channel): Promise<{ ok: boolean; afterNotify?: () => void }> {
    const { bridges, bus, log } = this.#deps;
    const surviving = bridges.bridgeOf(firstLeg.id);
    const merged = bridges.bridgeOf(secondLeg.id);
    if (surviving === undefined || merged === undefined || surviving === merged) return { ok: false };
    const firstBridgeBefore = surviving.snapshot();
    const secondBridgeBefore = merged.snapshot();
    const transferees = [...surviving.participants.values()].map((p) => p.channel).filter((c) => c !== firstLeg);
    const targets = [...merged.participants.values()].map((p) => p.channel).filter((c) => c !== secondLeg);
    await bridges.removeChannels(surviving, [firstLeg]);
    await bridges.removeChannels(merged, [secondLeg]);
    const moving = targets.filter((c) => !c.isDestroyed);
    if (moving.length > 0) await bridges.addChannels(surviving, moving);
    bus.publish({ type: 'BridgeMerged', bridge: surviving.snapshot(), bridge_from: merged.snapshot() });
    const [transferee] = transferees;
    const [target] = targets;
    bus.publish({
      type: 'BridgeAttendedTransfer',
      transferer_first_leg: firstLeg.snapshot(),
      transferer_second_leg: secondLeg.snapshot(),
      ...(transferees.length === 1 && transferee !== undefined ? { transferee: transferee.snapshot() } : {}),
      ...(targets.length === 1 && target !== undefined ? { transfer_target: target.snapshot() } : {}),
      result: 'Success',
      is_external: true,
      transferer_first_leg_bridge: firstBridgeBefore,
      transferer_second_leg_bridge: secondBridgeBefore,
      destination_type: 'bridge',
      destination_bridge: surviving.id,
    });
    log.info(
      { first: firstLeg.name, second: secondLeg.name, bridge: surviving.id, from: merged.id },
      'attended transfer merged two bridges',
    );
    void secondLeg.hangup(CAUSE_NORMAL_CLEARING);
    return { ok: true, afterNotify: () => this.#hangUpLingering(firstLeg) };
  }

  /** The transferer heard the outcome and normally hangs up itself; it is hung up if it lingers. */
  #hangUpLingering(transferer: Channel): void {
    if (transferer.isDestroyed) return;
    const { clock } = this.#deps;
    const timer = clock.setTimeout(() => void transferer.hangup(CAUSE_NORMAL_CLEARING), TRANSFERER_HANGUP_MS);
    transferer.hangupSignal.addEventListener('abort', () => clock.clearTimeout(timer), { once: true });
  }
}

function otherParticipant(participants: Iterable<{ channel: Channel }>, channel: Channel): Channel | undefined {
  for (const participant of participants) if (participant.channel !== channel) return participant.channel;
  return undefined;
}
