/**
 * Connects the SIP driver's reports to the object model: registrations become endpoint state and
 * ContactStatusChange events, and the `Dial` dialplan application gets core's channels and media.
 */
import type { SwitchboardCore } from '@switchboard/core';
import { systemClock } from '@switchboard/core';
import { type ContactChange, type EndpointStatusListener, createDialApplication } from '@switchboard/signalling';

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
