/**
 * A transfer the far end of an application's channel asks for (SIP REFER), when the channel's
 * `PJSIP_TRANSFER_HANDLING` is `ari-only` (set as a variable or as the function
 * `PJSIP_TRANSFER_HANDLING()`): the application decides, told by a ChannelTransfer event, and
 * reports back through transfer_progress.
 */
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { TransferRequestInfo } from '../drivers/channel-technology.js';
import type { EventBus } from '../events/event-bus.js';
import type { RequiredDestinationSnapshot } from '../events/domain-events.js';
import type { Channel } from './channel.js';
import type { ChannelRegistry } from './channel-registry.js';

export const TRANSFER_HANDLING_VARIABLE = 'PJSIP_TRANSFER_HANDLING';

export interface ChannelTransferDeps {
  bus: EventBus;
  bridges: BridgeRegistry;
  channels: ChannelRegistry;
}

/** Whether the application takes the transfer over; publishes ChannelTransfer when it does. */
export function offerTransferToApplication(deps: ChannelTransferDeps, channel: Channel, request: TransferRequestInfo): boolean {
  if (channel.application === undefined || channel.isDestroyed) return false;
  if (channel.getVariable(TRANSFER_HANDLING_VARIABLE)?.trim().toLowerCase() !== 'ari-only') return false;
  const bridge = deps.bridges.bridgeOf(channel.id);
  const connected = bridge === undefined ? undefined : [...bridge.participants.values()].find((p) => p.channel !== channel)?.channel;
  const requested: RequiredDestinationSnapshot =
    request.kind === 'blind' ? { destination: request.destination } : { protocol_id: request.protocolId };
  const destination =
    request.kind === 'attended' && request.replaced !== undefined
      ? deps.channels.list().find((c) => c.tech === request.replaced && !c.isDestroyed)
      : undefined;
  const destinationBridge = destination === undefined ? undefined : deps.bridges.bridgeOf(destination.id);
  const destinationPeer =
    destinationBridge === undefined
      ? undefined
      : [...destinationBridge.participants.values()].find((p) => p.channel !== destination)?.channel;
  deps.bus.publish({
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
  return true;
}
