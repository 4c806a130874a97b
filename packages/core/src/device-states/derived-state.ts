/**
 * The state of a device backed by an endpoint (`SIP/alice`), derived the way phones expect busy
 * lamps to behave: a channel alerting the phone is RINGING, any other channel makes it INUSE, both
 * make it RINGINUSE; with no channel the endpoint's reachability decides.
 */
import type { ChannelState } from '../model/channel-state.js';
import type { DeviceStateValue, EndpointState } from '../model/snapshots.js';

export interface EndpointChannelView {
  readonly direction: 'inbound' | 'outbound';
  readonly state: ChannelState;
  /** A channel being destroyed no longer counts. */
  readonly isDestroyed?: boolean;
}

/** A call towards the phone that is alerting it; an inbound channel in `Ring` is the phone dialling. */
export function isAlerting(channel: EndpointChannelView): boolean {
  return channel.direction === 'outbound' && (channel.state === 'Ringing' || channel.state === 'Ring');
}

export function deriveDeviceState(endpointState: EndpointState, channels: Iterable<EndpointChannelView>): DeviceStateValue {
  let ringing = 0;
  let busy = 0;
  for (const channel of channels) {
    if (channel.isDestroyed === true) continue;
    if (isAlerting(channel)) ringing += 1;
    else busy += 1;
    // Both seen: nothing further changes the answer (an endpoint may have hundreds of channels).
    if (ringing > 0 && busy > 0) return 'RINGINUSE';
  }
  return deviceStateOfCounts(endpointState, { live: ringing + busy, alerting: ringing });
}

/** The endpoint's live channels, and how many of them are alerting the phone. */
export interface EndpointChannelCounts {
  readonly live: number;
  readonly alerting: number;
}

/** deriveDeviceState from counts kept as channels change (ChannelRegistry), in constant time. */
export function deviceStateOfCounts(endpointState: EndpointState, counts: EndpointChannelCounts): DeviceStateValue {
  const ringing = counts.alerting;
  const busy = counts.live - counts.alerting;
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
