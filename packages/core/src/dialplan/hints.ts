/**
 * Dialplan hints (`exten => 101,hint,SIP/alice&App:desk`): an extension stands for the combined
 * device state of its devices, which is what busy lamps subscribed to the extension show.
 *
 * The combination follows Asterisk's aggregation: states are ranked
 * INVALID < UNKNOWN < UNAVAILABLE < NOT_INUSE < ONHOLD < RINGING < INUSE < BUSY < RINGINUSE and the
 * highest wins, except that a ringing device together with one in use (INUSE, ONHOLD or BUSY)
 * makes RINGINUSE. No device at all is INVALID.
 */
import type { DialplanConfig } from '../config/types.js';
import type { DeviceStateValue } from '../model/snapshots.js';
import { isDeviceStateValue } from '../device-states/device-state-values.js';

const RANK: Record<DeviceStateValue, number> = {
  INVALID: 0,
  UNKNOWN: 1,
  UNAVAILABLE: 2,
  NOT_INUSE: 3,
  ONHOLD: 4,
  RINGING: 5,
  INUSE: 6,
  BUSY: 7,
  RINGINUSE: 8,
};

/** The state of a hint from the states of its devices (an unknown name counts as UNKNOWN). */
export function aggregateDeviceStates(states: readonly string[]): DeviceStateValue {
  let result: DeviceStateValue = 'INVALID';
  let ringing = false;
  let inUse = false;
  for (const text of states) {
    const state: DeviceStateValue = isDeviceStateValue(text) ? text : 'UNKNOWN';
    if (state === 'RINGING') ringing = true;
    else if (state === 'INUSE' || state === 'ONHOLD' || state === 'BUSY') inUse = true;
    if (ringing && inUse) result = 'RINGINUSE';
    else if (RANK[state] > RANK[result]) result = state;
  }
  return result;
}

/** `SIP/alice&App:desk` (anything after a comma is Asterisk's presence provider, not used) → devices. */
export function parseHintDevices(text: string): string[] {
  const [devices = ''] = text.split(',');
  return devices
    .split('&')
    .map((device) => device.trim())
    .filter((device) => device !== '');
}

/** At most this many contexts are searched through includes for one hint. */
const MAX_CONTEXTS_SEARCHED = 64;

/**
 * The devices of the hint for `exten` in `context`, searching included contexts as extension
 * lookup does (breadth first, each context once); undefined when there is no hint.
 */
export function findHint(dialplan: DialplanConfig, context: string, exten: string): string[] | undefined {
  const byName = new Map(dialplan.contexts.map((c) => [c.name, c]));
  const queue = [context];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_CONTEXTS_SEARCHED) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const found = byName.get(name);
    if (found === undefined) continue;
    const devices = found.hints?.[exten];
    if (devices !== undefined) return devices;
    queue.push(...found.includes);
  }
  return undefined;
}
