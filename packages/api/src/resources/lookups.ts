/**
 * The lookups every controlling operation starts with (STYLE: thin handlers that tell "does not
 * exist" from "exists but not usable"): 404 for an unknown channel, 409 for a channel outside
 * every application, 412 for an outbound channel that has not answered (reference channels.md).
 */
import type { Channel, SwitchboardCore } from '@switchboard/core';

export function controlledChannel(core: SwitchboardCore, channelId: string): Channel {
  const channel = core.channels.require(channelId);
  core.applications.requireControlled(channel);
  return channel;
}

/** A controlled channel that media and state operations may act on. */
export function answeredOrInboundChannel(core: SwitchboardCore, channelId: string): Channel {
  const channel = controlledChannel(core, channelId);
  channel.assertReadyForMedia();
  return channel;
}
