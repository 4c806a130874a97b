/**
 * The state of a device backed by an endpoint (`SIP/alice`), derived the way phones expect busy
 * lamps to behave: a channel alerting the phone is RINGING, any other channel makes it INUSE, both
 * make it RINGINUSE; with no channel the endpoint's reachability decides.
 */
import type { ChannelState } from '../model/channel-state.js';
import type { DeviceStateValue, EndpointState } from '../model/snapshots.js';

export interface EndpointChannelView {
  direction: 'inbound' | 'outbound';
  state: ChannelState;
}

export function deriveDeviceState(endpointState: EndpointState, channels: readonly EndpointChannelView[]): DeviceStateValue {
  // A call towards the phone that is alerting it; an inbound channel in `Ring` is the phone dialling.
  const ringing = channels.filter((c) => c.direction === 'outbound' && (c.state === 'Ringing' || c.state === 'Ring')).length;
  const busy = channels.length - ringing;
  if (ringing > 0 && busy > 0) return 'RINGINUSE';
  if (ringing > 0) return 'RINGING';
  if (busy > 0) return 'INUSE';
  switch (endpointState) {
    case 'online':
      return 'NOT_INUSE';
    case 'offline':
      return 'UNAVAILABLE';
    default:
      return 'UNKNOWN';
  }
}
