/**
 * One-touch recording (features.conf `automixmon`, enabled by Dial's w/W/x/X): the first press
 * starts a MixMonitor of the channel, the next stops it, as the original's automixmon does. The
 * file is named by TOUCH_MIXMONITOR (on the channel, else on its peer) or
 * `auto-<epoch>-<caller number>-<peer number>`, in TOUCH_MIXMONITOR_FORMAT (default wav).
 */
import type { Channel } from '../../../channels/channel.js';
import { parseMixMonitorOptions } from './mixmonitor-options.js';
import type { MixMonitorService } from './mixmonitor-service.js';

/** The monitor each channel's one-touch recording started, while it runs. */
const touchMonitors = new WeakMap<Channel, string>();

function variableOf(channel: Channel, peer: Channel, name: string): string | undefined {
  const own = channel.getVariable(name);
  if (own !== undefined && own !== '') return own;
  const theirs = peer.getVariable(name);
  return theirs !== undefined && theirs !== '' ? theirs : undefined;
}

/** A name safe as a recording file name (digits, letters and `-_.` only). */
function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '');
}

export async function toggleTouchRecording(service: MixMonitorService, channel: Channel, peer: Channel): Promise<'started' | 'stopped'> {
  const running = touchMonitors.get(channel);
  if (running !== undefined) {
    touchMonitors.delete(channel);
    if ((await service.stop(channel, running)) > 0) return 'stopped';
  }
  const format = safe(variableOf(channel, peer, 'TOUCH_MIXMONITOR_FORMAT') ?? 'wav') || 'wav';
  const named = variableOf(channel, peer, 'TOUCH_MIXMONITOR');
  const base =
    named ?? `auto-${Math.floor(Date.now() / 1000)}-${safe(channel.caller.number) || 'unknown'}-${safe(peer.caller.number) || 'unknown'}`;
  const file = base.includes('.') ? base : `${base}.${format}`;
  const started = await service.start(channel, { file, options: parseMixMonitorOptions('') });
  touchMonitors.set(channel, started.id);
  channel.setVariable('MIXMONITOR_FILENAME', started.file);
  return 'started';
}
