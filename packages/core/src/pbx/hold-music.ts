/**
 * Music on hold for a Dial() call: when one party holds (its phone sends `sendonly`/`inactive`,
 * reported as ChannelHold), the other party of the core's own bridge hears the holder's endpoint
 * `moh_suggest` class (default `default`) until ChannelUnhold. Bridges made through the API are
 * left alone: their application decides what is played. The bridge's legs keep their own RTP
 * streams, so sequence numbers and timestamps run on across the music (media rtp-leg.ts).
 */
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { SipEndpointConfig } from '../config/types.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../util/logger.js';

export function playMusicToHeldParties(deps: {
  bus: EventBus;
  bridges: Pick<BridgeRegistry, 'bridgeOf' | 'startMusic' | 'stopMusic'>;
  endpoints: () => readonly SipEndpointConfig[];
  log: Logger;
}): void {
  /** Bridge id → the channels holding in it (music plays while any does). */
  const holding = new Map<string, Set<string>>();
  deps.bus.subscribe((event) => {
    if (event.type !== 'ChannelHold' && event.type !== 'ChannelUnhold') return;
    const channel = event.channel;
    const bridge = deps.bridges.bridgeOf(channel.id);
    if (bridge === undefined || bridge.appOwned) return;
    const holders = holding.get(bridge.id) ?? new Set<string>();
    if (event.type === 'ChannelHold') {
      if (holders.has(channel.id)) return;
      holders.add(channel.id);
      holding.set(bridge.id, holders);
      if (holders.size > 1) return;
      const endpoint = deps
        .endpoints()
        .find((e) => channel.name.startsWith(`SIP/${e.name}-`) || channel.name.startsWith(`PJSIP/${e.name}-`));
      const mohClass = endpoint?.mohSuggest ?? 'default';
      deps.bridges
        .startMusic(bridge, mohClass)
        .catch((err: unknown) => deps.log.warn({ err, bridge: bridge.id, mohClass }, 'music on hold could not start'));
      return;
    }
    if (!holders.delete(channel.id)) return;
    if (holders.size > 0) return;
    holding.delete(bridge.id);
    deps.bridges.stopMusic(bridge).catch((err: unknown) => deps.log.debug({ err, bridge: bridge.id }, 'music on hold could not stop'));
  });
}
