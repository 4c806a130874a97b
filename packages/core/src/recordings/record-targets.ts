/** What a channel or a bridge looks like as the target of a recording. */
import type { Bridge } from '../bridges/bridge.js';
import type { Channel } from '../channels/channel.js';
import { conflict } from '../errors.js';
import type { RecordTarget } from './recording-manager.js';

/** A channel's own leg: what its phone sends (reference: audio received from the channel). 409 without media. */
export function channelRecordTarget(channel: Channel): RecordTarget {
  const legId = channel.tech.mediaLegId;
  if (!legId) throw conflict('Channel has no media to record');
  return { uri: `channel:${channel.id}`, media: { kind: 'leg', legId }, onGone: (hook) => channel.onHangup(() => hook()) };
}

/** The mix of every participant of a bridge. */
export function bridgeRecordTarget(bridge: Bridge): RecordTarget {
  return { uri: `bridge:${bridge.id}`, media: { kind: 'bridge', bridgeId: bridge.id }, onGone: (hook) => bridge.onDestroy(hook) };
}
