/** Models of deviceStates.json (reference deviceStates.md). */
import type { DeviceStateSnapshot, DeviceStateValue } from '@switchboard/core';
import { type ModelFor, listOfAll } from '../types.js';

export const DeviceStateModel = {
  id: 'DeviceState',
  description: 'Represents the state of a device.',
  properties: {
    name: { type: 'string', description: 'Name of the device.', required: true },
    state: {
      type: 'string',
      description: 'Device state value.',
      required: true,
      allowableValues: listOfAll<DeviceStateValue>()([
        'UNKNOWN',
        'NOT_INUSE',
        'INUSE',
        'BUSY',
        'INVALID',
        'UNAVAILABLE',
        'RINGING',
        'RINGINUSE',
        'ONHOLD',
      ]),
    },
  },
} as const satisfies ModelFor<DeviceStateSnapshot>;

export const DEVICE_STATE_MODELS = [DeviceStateModel];
