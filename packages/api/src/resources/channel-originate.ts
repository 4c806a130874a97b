/** originate, originateWithId, create and dial (reference channels.md; SPEC §4.4 originate rules). */
import { type ApiCall, type ApiResult, defineOperation, noContent, ok } from '../http/operation.js';
import type { ParameterDecl, ParamValues } from '../swagger/types.js';
import { appArgsParam, channelIdParam, variableSettings, variablesBodyParam } from './channel-params.js';
import { controlledChannel } from './lookups.js';

const endpointParam = {
  name: 'endpoint',
  description: 'Endpoint to call, technology/resource (e.g. SIP/alice; PJSIP is accepted for SIP)',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

const otherChannelIdParam = {
  name: 'otherChannelId',
  description: 'The unique id to assign the second channel when using local channels',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const satisfies ParameterDecl;

const originatorParam = {
  name: 'originator',
  description: 'The unique id of the channel which is originating this one; cannot be combined with formats',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const satisfies ParameterDecl;

const formatsParam = {
  name: 'formats',
  description: 'The format name capability list to use if originator is not specified, comma-separated (ex. "ulaw,alaw")',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const satisfies ParameterDecl;

const newChannelIdParam = {
  name: 'channelId',
  description: 'The unique id to assign the channel on creation',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const satisfies ParameterDecl;

/** What originate and create take after their own parameters: the Local channel's second id, the originator, the formats. */
const creationParams = [otherChannelIdParam, originatorParam, formatsParam] as const satisfies readonly ParameterDecl[];

/** Everything of originate except the channel id, which is a query parameter or the path. */
const originateParams = [
  endpointParam,
  {
    name: 'extension',
    description: 'The extension to dial after the endpoint answers. Mutually exclusive with app',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  {
    name: 'context',
    description: 'The context to dial after the endpoint answers; default is "default". Mutually exclusive with app',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  {
    name: 'priority',
    description: 'The priority to dial after the endpoint answers; default is 1. Mutually exclusive with app',
    paramType: 'query',
    dataType: 'long',
    required: false,
  },
  {
    name: 'label',
    description: 'The label to dial after the endpoint answers; wins over priority. Mutually exclusive with app',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  {
    name: 'app',
    description:
      'The application that is subscribed to the originated channel and receives it when it answers. Mutually exclusive with the dialplan target',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  appArgsParam,
  {
    name: 'callerId',
    description: 'CallerID to use when dialing the endpoint or extension',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  {
    name: 'timeout',
    description: 'Timeout (in seconds) before giving up dialing, or -1 for no timeout',
    paramType: 'query',
    dataType: 'int',
    required: false,
    defaultValue: 30,
  },
  variablesBodyParam,
] as const satisfies readonly ParameterDecl[];

const ORIGINATE_ERRORS = [
  { code: 400, reason: 'Invalid parameters for originating a channel' },
  { code: 404, reason: 'Endpoint or dialplan label not found' },
  { code: 409, reason: 'Channel with given unique ID already exists' },
  { code: 503, reason: 'No transport of the technology can carry the call' },
] as const;

const originateQueryParams = [...originateParams, newChannelIdParam, ...creationParams] as const;

/** One handler for both originate forms: the channel id comes from the query or from the path. */
async function originateHandler({ core, params }: ApiCall<ParamValues<typeof originateQueryParams>>): Promise<ApiResult> {
  const channel = await core.originator.originate({
    ...params,
    formats: splitFormats(params.formats),
    variables: variableSettings(params.variables),
  });
  return ok(channel.snapshot());
}

export const originate = defineOperation({
  httpMethod: 'POST',
  nickname: 'originate',
  summary: 'Create a new channel (originate).',
  notes:
    'The new channel is created immediately and a snapshot of it returned. If a application is given, the ' +
    'application is subscribed to the channel at once and receives it when it answers.',
  responseClass: 'Channel',
  since: ['12.0.0'],
  parameters: originateQueryParams,
  errorResponses: ORIGINATE_ERRORS,
  handler: (call) => originateHandler(call),
});

export const originateWithId = defineOperation({
  httpMethod: 'POST',
  nickname: 'originateWithId',
  summary: 'Create a new channel (originate with id).',
  notes: 'The new channel is created immediately with the id of the path; see originate.',
  responseClass: 'Channel',
  since: ['12.2.0'],
  parameters: [
    { ...channelIdParam, description: 'The unique id to assign the channel on creation' },
    ...originateParams,
    ...creationParams,
  ],
  errorResponses: ORIGINATE_ERRORS,
  handler: (call) => originateHandler(call),
});

export const create = defineOperation({
  httpMethod: 'POST',
  nickname: 'create',
  summary: 'Create channel.',
  notes: 'The channel enters the application at once (AppStart) without being dialled; dial it with POST /channels/{channelId}/dial.',
  responseClass: 'Channel',
  since: ['14.0.0'],
  parameters: [
    endpointParam,
    {
      name: 'app',
      description: 'The application that is subscribed to the created channel',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    appArgsParam,
    newChannelIdParam,
    ...creationParams,
    variablesBodyParam,
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters for creating a channel' },
    { code: 404, reason: 'Endpoint not found' },
    { code: 409, reason: 'Channel with given unique ID already exists' },
    { code: 503, reason: 'No transport of the technology can carry the call' },
  ],
  handler: async ({ core, params }) => {
    const channel = await core.originator.create({
      ...params,
      formats: splitFormats(params.formats),
      variables: variableSettings(params.variables),
    });
    return ok(channel.snapshot());
  },
});

export const dial = defineOperation({
  httpMethod: 'POST',
  nickname: 'dial',
  summary: 'Dial a created channel.',
  notes: 'Progress is reported with Dial events; a timeout hangs the channel up with cause 19 (no answer).',
  responseClass: 'void',
  since: ['14.0.0'],
  parameters: [
    channelIdParam,
    {
      name: 'caller',
      description: 'Channel ID of caller; its language is applied and Dial events name it',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    {
      name: 'timeout',
      description: 'Dial timeout in seconds; 0 means no limit',
      paramType: 'query',
      dataType: 'int',
      required: false,
      defaultValue: 0,
      allowableValues: { valueType: 'RANGE', min: 0 },
    },
  ],
  errorResponses: [
    { code: 404, reason: 'Channel cannot be found (or the caller channel)' },
    { code: 409, reason: 'Channel cannot be dialed: not made by create, already dialled, or not in an application' },
  ],
  handler: ({ core, params }) => {
    const channel = controlledChannel(core, params.channelId);
    core.originator.dial(channel, { caller: params.caller, timeout: params.timeout });
    return noContent();
  },
});

/** `formats` is one comma-separated string in the reference (not allowMultiple). */
function splitFormats(formats: string | undefined): string[] | undefined {
  return formats === undefined ? undefined : formats.split(',');
}
