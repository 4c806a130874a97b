/** snoopChannel and snoopChannelWithId (reference channels.md): a spy/whisper channel placed in an application. */
import type { SnoopDirection } from '@switchboard/core';
import { defineOperation, ok } from '../http/operation.js';
import type { ParameterDecl } from '../swagger/types.js';
import { appArgsParam, channelIdParam } from './channel-params.js';

const DIRECTIONS = ['none', 'both', 'out', 'in'] as const satisfies readonly SnoopDirection[];

const snoopParams = [
  {
    name: 'spy',
    description: 'Direction of audio to spy on: in = what the channel receives from its phone',
    paramType: 'query',
    dataType: 'string',
    required: false,
    defaultValue: 'none',
    allowableValues: { valueType: 'LIST', values: DIRECTIONS },
  },
  {
    name: 'whisper',
    description: 'Direction of audio to whisper into',
    paramType: 'query',
    dataType: 'string',
    required: false,
    defaultValue: 'none',
    allowableValues: { valueType: 'LIST', values: DIRECTIONS },
  },
  { name: 'app', description: 'Application the snooping channel is placed into', paramType: 'query', dataType: 'string', required: true },
  { ...appArgsParam, description: 'The application arguments to pass to the application' },
] as const satisfies readonly ParameterDecl[];

const SNOOP_ERRORS = [
  { code: 400, reason: 'Invalid parameters: spy and whisper both none, an invalid direction, or no app' },
  { code: 404, reason: 'Channel not found' },
  { code: 409, reason: 'A channel with the snoop id already exists' },
] as const;

export const snoopChannel = defineOperation({
  httpMethod: 'POST',
  nickname: 'snoopChannel',
  summary: 'Start snooping.',
  notes: 'Snoop (spy/whisper) on a specific channel. The channel snooped on need not be in an application.',
  responseClass: 'Channel',
  since: ['12.0.0'],
  parameters: [
    channelIdParam,
    ...snoopParams,
    { name: 'snoopId', description: 'Unique ID to assign to snooping channel', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: SNOOP_ERRORS,
  handler: async ({ core, params }) => {
    const snoop = await core.snoops.snoop(core.channels.require(params.channelId), params);
    return ok(snoop.snapshot());
  },
});

export const snoopChannelWithId = defineOperation({
  httpMethod: 'POST',
  nickname: 'snoopChannelWithId',
  summary: 'Start snooping, with the snoop channel id of the path.',
  notes: 'Snoop (spy/whisper) on a specific channel. The channel snooped on need not be in an application.',
  responseClass: 'Channel',
  since: ['12.2.0'],
  parameters: [
    channelIdParam,
    { name: 'snoopId', description: 'Unique ID to assign to snooping channel', paramType: 'path', dataType: 'string', required: true },
    ...snoopParams,
  ],
  errorResponses: SNOOP_ERRORS,
  handler: async ({ core, params }) => {
    const snoop = await core.snoops.snoop(core.channels.require(params.channelId), params);
    return ok(snoop.snapshot());
  },
});
