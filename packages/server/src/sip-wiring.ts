/**
 * Connects the SIP driver's reports to the object model: registrations become endpoint state and
 * ContactStatusChange events, and the `Dial` dialplan application gets core's channels and bridges.
 */
import type { SwitchboardCore } from '@switchboard/core';
import { CoreError, inheritVariables, systemClock } from '@switchboard/core';
import {
  type ContactChange,
  type DialBridges,
  type EndpointStatusListener,
  type InboundTextMessageSink,
  type PresenceSources,
  type QualifyListener,
  type SipDriver,
  createDialApplication,
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

/** Registers the driver as core's text message sender for `SIP`; returns the unregistration. */
export function registerSipServices(core: SwitchboardCore, sip: SipDriver): () => void {
  return core.textMessages.registerSender('SIP', sip.textMessageSender);
}
