/** The `deviceStates` resource (SPEC §4.10, reference deviceStates.md). */
import { SETTABLE_DEVICE_STATES } from '@switchboard/core';
import { defineOperation, noContent, ok, type ResourceDecl } from '../http/operation.js';
import { DEVICE_STATE_MODELS } from '../swagger/models/deviceStates.js';

const deviceName = {
  name: 'deviceName',
  description: 'Name of the device',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all device states controlled by applications.',
  responseClass: 'List[DeviceState]',
  since: ['12.0.0'],
  parameters: [],
  errorResponses: [],
  handler: async ({ core }) => ok(await core.deviceStates.list()),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Retrieve the current state of a device.',
  notes: 'Any device: App:<name> devices set by applications, and endpoint devices such as SIP/alice (PJSIP/alice).',
  responseClass: 'DeviceState',
  since: ['12.0.0'],
  parameters: [deviceName],
  errorResponses: [{ code: 404, reason: 'Device state not found' }],
  handler: async ({ core, params }) => ok(await core.deviceStates.get(params.deviceName)),
});

const update = defineOperation({
  httpMethod: 'PUT',
  nickname: 'update',
  summary: 'Change the state of a device controlled by an application.',
  notes: 'Only devices named App:<name> can be changed; the state is kept across restarts.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    deviceName,
    {
      name: 'deviceState',
      description: 'Device state value',
      paramType: 'query',
      dataType: 'string',
      required: true,
      allowableValues: { valueType: 'LIST', values: SETTABLE_DEVICE_STATES },
    },
  ],
  errorResponses: [
    { code: 404, reason: 'Device name is missing' },
    { code: 409, reason: 'Uncontrolled device specified' },
  ],
  handler: async ({ core, params }) => {
    await core.deviceStates.update(params.deviceName, params.deviceState);
    return noContent();
  },
});

const remove = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'delete',
  summary: 'Destroy a device-state controlled by an application.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [deviceName],
  errorResponses: [
    { code: 404, reason: 'Device name is missing, or the device does not exist' },
    { code: 409, reason: 'Uncontrolled device specified' },
  ],
  handler: async ({ core, params }) => {
    await core.deviceStates.delete(params.deviceName);
    return noContent();
  },
});

export const deviceStatesResource: ResourceDecl = {
  name: 'deviceStates',
  description: 'Device state resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  requiresModules: ['res_stasis_device_state'],
  apis: [
    { path: '/deviceStates', description: 'Device states', operations: [list] },
    { path: '/deviceStates/{deviceName}', description: 'Device state', operations: [get, update, remove] },
  ],
  models: DEVICE_STATE_MODELS,
};
