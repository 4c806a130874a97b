/**
 * A call that takes the place of another (SIP INVITE with Replaces, RFC 3891 §3) as far as core
 * is concerned: the new channel is created without a dialplan; when the replaced channel is in
 * an application, the new one enters that application with AppStart `replace_channel` and takes
 * the replaced one's place in its bridge (the reference's masquerade, seen from the API).
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { Channel } from '../channels/channel.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import type { ChannelTechnology, InboundCall, ReplacementCall } from '../drivers/channel-technology.js';
import type { Logger } from '../util/logger.js';
import type { DialplanRunner } from './dialplan-runner.js';
import { runInApplication } from './application-session.js';

export interface ReplacementDeps {
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  bridges: BridgeRegistry;
  dialplanRunner: DialplanRunner;
  log: Logger;
  /** Creates the channel of an inbound call (core's acceptInbound without the dialplan). */
  createInbound(call: InboundCall): { channel: Channel; events: ReplacementCall['events'] };
}

export function acceptReplacement(deps: ReplacementDeps, call: InboundCall, replacedTech: ChannelTechnology): ReplacementCall {
  const replaced = deps.channels.list().find((channel) => channel.tech === replacedTech && !channel.isDestroyed);
  const { channel, events } = deps.createInbound(call);
  const application = replaced?.application;
  if (replaced !== undefined && application !== undefined) {
    const bridge = deps.bridges.bridgeOf(replaced.id);
    void runInApplication(deps, channel, application, [], { replaceChannel: replaced }).catch((err: unknown) =>
      deps.log.error({ err, channel: channel.name }, 'replacing channel left its application badly'),
    );
    if (bridge !== undefined) {
      deps.bridges
        .addChannels(bridge, [channel])
        .catch((err: unknown) =>
          deps.log.warn({ err, channel: channel.name, bridge: bridge.id }, 'replacing channel could not join the bridge'),
        );
    }
  }
  return { channel, replaced, application, events };
}
