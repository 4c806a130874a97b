/**
 * Connects the SIP driver's reports to the object model: registrations become endpoint state and
 * ContactStatusChange events, and the `Dial` dialplan application gets core's channels and media.
 */
import type { SwitchboardCore } from '@switchboard/core';
import { systemClock } from '@switchboard/core';
import {
  type ContactChange,
  type EndpointStatusListener,
  type InboundTextMessageSink,
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

export function registerDial(core: SwitchboardCore): void {
  core.dialplanRunner.registerApplication(
    'Dial',
    createDialApplication({
      channels: core.channels,
      driverFor: (technology) => core.driverFor(technology),
      media: core.media,
      clock: systemClock,
      publish: (event) => core.bus.publish(event),
      snapshotVariables: core.config.ari.channelVars,
    }),
  );
}

/**
 * The SipDriver options that report into core: inbound MESSAGEs become TextMessageReceived, and
 * qualify results ContactStatusChange / PeerStatusChange.
 */
export function sipServicesFor(core: SwitchboardCore): { textMessages: InboundTextMessageSink; qualify: QualifyListener } {
  return {
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
