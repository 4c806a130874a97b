/**
 * Connects the SIP driver's reports to the object model: registrations become endpoint state and
 * ContactStatusChange events, and the `Dial` dialplan application gets core's channels and bridges.
 */
import type { SwitchboardCore } from '@switchboard/core';
import {
  CoreError,
  DEFAULT_DTMF_TIMING,
  defaultFeaturesConfig,
  inheritVariables,
  systemClock,
  toggleTouchRecording,
} from '@switchboard/core';
import {
  type ContactChange,
  type DialBridges,
  type EndpointStatusListener,
  type InboundTextMessageSink,
  type PresenceSources,
  type QualifyListener,
  type SipDriver,
  createDialApplication,
  createPageApplication,
} from '@switchboard/signalling';

const CONTACT_STATUS: Record<ContactChange['kind'], 'Reachable' | 'Removed'> = {
  created: 'Reachable',
  updated: 'Reachable',
  removed: 'Removed',
  expired: 'Removed',
};

export function endpointStatusFor(core: SwitchboardCore): EndpointStatusListener {
  return {
    endpointStateChanged: (endpoint, state) => core.endpoints.setEndpointState('SIP', endpoint, state),
    contactChanged: (change) => {
      if (!change.endpoint) return;
      core.endpoints.contactStatusChanged('SIP', change.endpoint, {
        uri: change.uri,
        contact_status: CONTACT_STATUS[change.kind],
        aor: change.aor,
      });
    },
  };
}

/**
 * Dial's bridges are core's own bridges: listed by the API with their events, but controlled by no
 * application (the API answers 409 to changes), as Asterisk's basic bridge (class `basic`, no
 * creator name).
 */
export function dialBridgesFor(core: SwitchboardCore): DialBridges {
  return {
    create: async () => (await core.bridges.create({ type: 'mixing', appOwned: false, bridgeClass: 'basic' })).id,
    add: async (bridgeId, channels, entry) => {
      const early = entry?.earlyMedia === true;
      await core.bridges.addChannels(core.bridges.require(bridgeId), channels, {
        keepUnanswered: early,
        inhibitConnectedLineUpdates: early,
      });
    },
    remove: async (bridgeId, channels) => {
      const bridge = core.bridges.get(bridgeId);
      if (bridge !== undefined) await core.bridges.removeChannels(bridge, channels);
    },
    destroy: async (bridgeId) => {
      const bridge = core.bridges.get(bridgeId);
      if (bridge !== undefined) await core.bridges.destroy(bridge);
    },
    snapshot: (bridgeId) => core.bridges.get(bridgeId)?.snapshot(),
  };
}

/** Page(): a one-way intercom through a bridge of the system's own, pages muted unless `d`. */
export function registerPage(core: SwitchboardCore): void {
  core.dialplanRunner.registerApplication(
    'Page',
    createPageApplication({
      channels: core.channels,
      driverFor: (technology) => core.driverFor(technology),
      snapshotVariables: core.config.ari.channelVars,
      bridges: {
        create: async () => (await core.bridges.create({ type: 'mixing', appOwned: false, bridgeClass: 'basic' })).id,
        add: (bridgeId, channel, options) => core.bridges.addChannels(core.bridges.require(bridgeId), [channel], { mute: options.mute }),
        destroy: async (bridgeId) => {
          const bridge = core.bridges.get(bridgeId);
          if (bridge !== undefined) await core.bridges.destroy(bridge);
        },
      },
    }),
  );
}

export function registerDial(core: SwitchboardCore): void {
  core.dialplanRunner.registerApplication(
    'Dial',
    createDialApplication({
      channels: core.channels,
      driverFor: (technology) => core.driverFor(technology),
      bridges: dialBridgesFor(core),
      clock: systemClock,
      publish: (event) => core.bus.publish(event),
      snapshotVariables: core.config.ari.channelVars,
      runDialplan: (channel, start) => {
        core.dialplanRunner.run(channel, start).catch(() => undefined);
      },
      remoteHold: (channel, onHold) => core.channelMedia.remoteHold(channel, onHold),
      inheritVariables,
      extras: {
        startMoh: (channel, mohClass) => core.channelMedia.startMoh(channel, mohClass),
        stopMoh: (channel) => core.channelMedia.stopMoh(channel),
        play: async (channel, sounds) => {
          await core.playbacks.playOnChannelTracked(
            channel,
            sounds.map((sound) => `sound:${sound}`),
          ).finished;
        },
        sendDtmf: (channel, digits) => core.channelMedia.sendDtmf(channel, digits, DEFAULT_DTMF_TIMING),
        gosub: (channel, target) => core.dialplanRunner.runSubroutine(channel, target),
      },
      features: {
        features: core.config.features ?? defaultFeaturesConfig(),
        onDtmf: (channel, listener) =>
          core.bus.subscribe((event) => {
            if (event.type === 'ChannelDtmfReceived' && event.channel.id === channel.id) listener(event.digit);
          }),
        toggleRecording: (channel, peer) => toggleTouchRecording(core.mixMonitors, channel, peer),
        extensionExists: (context, exten) => core.dialplanRunner.pbx.exists(context, exten),
        startMoh: (channel) => core.channelMedia.startMoh(channel, undefined),
        stopMoh: (channel) => core.channelMedia.stopMoh(channel),
        play: async (channel, sounds) => {
          await core.playbacks.playOnChannelTracked(
            channel,
            sounds.map((sound) => `sound:${sound}`),
          ).finished;
        },
      },
    }),
  );
}

/**
 * The SipDriver options that report into core: inbound MESSAGEs become TextMessageReceived, and
 * qualify results ContactStatusChange / PeerStatusChange.
 */
export function sipServicesFor(core: SwitchboardCore): {
  textMessages: InboundTextMessageSink;
  qualify: QualifyListener;
  presence: PresenceSources;
} {
  /** A lookup that 404s (or has no store) reads as absent; anything else is a real failure. */
  const orUndefined = async <T>(lookup: Promise<T>): Promise<T | undefined> => {
    try {
      return await lookup;
    } catch (err) {
      if (err instanceof CoreError && (err.code === 'not_found' || err.code === 'unavailable')) return undefined;
      throw err;
    }
  };
  return {
    presence: {
      mailboxes: {
        get: async (name) => {
          const mailbox = await orUndefined(core.mailboxes.get(name));
          return mailbox === undefined ? undefined : { newMessages: mailbox.new_messages, oldMessages: mailbox.old_messages };
        },
        onMailboxChanged: (listener) => core.mailboxes.onMailboxChanged((name) => listener(name)),
      },
      deviceStates: {
        get: async (device) => (await orUndefined(core.deviceStates.get(device)))?.state,
        onChange: (listener) =>
          core.bus.subscribe((event) => {
            if (event.type === 'DeviceStateChanged') listener(event.device_state.name, event.device_state.state);
          }),
      },
      hints: {
        devicesFor: (context, exten) => core.hintDevices(context, exten),
      },
    },
    textMessages: {
      received: (endpoint, message) => core.textMessages.received('SIP', endpoint, message),
    },
    qualify: {
      contactStatus: (change) =>
        core.endpoints.contactStatusChanged('SIP', change.endpoint, {
          uri: change.uri,
          contact_status: change.status,
          aor: change.aor,
          ...(change.roundtripUsec !== undefined ? { roundtrip_usec: String(change.roundtripUsec) } : {}),
        }),
      peerStatus: (endpoint, status) => core.endpoints.peerStatusChanged('SIP', endpoint, { peer_status: status }),
    },
  };
}

/** Registers the driver as core's text message and REFER sender for `SIP`; returns the unregistration. */
export function registerSipServices(core: SwitchboardCore, sip: SipDriver): () => void {
  const unregisterMessages = core.textMessages.registerSender('SIP', sip.textMessageSender);
  const unregisterRefers = core.refers.registerSender('SIP', sip.referSender);
  return () => {
    unregisterMessages();
    unregisterRefers();
  };
}
