import type { DeviceStateValue } from '../model/snapshots.js';

/** Every device state the wire shows (reference deviceStates.md). */
export const DEVICE_STATE_VALUES: readonly DeviceStateValue[] = [
  'UNKNOWN',
  'NOT_INUSE',
  'INUSE',
  'BUSY',
  'INVALID',
  'UNAVAILABLE',
  'RINGING',
  'RINGINUSE',
  'ONHOLD',
];

/** What an application may set: everything but UNKNOWN, which only the server can report. */
export const SETTABLE_DEVICE_STATES = ['NOT_INUSE', 'INUSE', 'BUSY', 'INVALID', 'UNAVAILABLE', 'RINGING', 'RINGINUSE', 'ONHOLD'] as const;
export type SettableDeviceState = (typeof SETTABLE_DEVICE_STATES)[number];

/** Devices an application controls carry this prefix (SPEC §2.15; the reference's `Stasis:`). */
export const CONTROLLED_DEVICE_PREFIX = 'App:';

export function isDeviceStateValue(text: string): text is DeviceStateValue {
  return (DEVICE_STATE_VALUES as readonly string[]).includes(text);
}
