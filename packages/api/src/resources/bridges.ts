// Over 500 lines: the declarations of every /bridges operation (parameters, errors, docs), each handler a few lines.
/**
 * The `bridges` resource (SPEC §4.5, reference bridges.md). Handlers look the bridge up (404 when
 * unknown, 409 when not created through this API) and hand the work to core's BridgeRegistry.
 */
import {
  bridgeRecordTarget,
  type Bridge,
  isChannelFormat,
  isRecorderFormat,
  notFound,
  type ClusterNodeConfig,
  type SwitchboardCore,
  unprocessable,
} from '@switchboard/core';
import { created, defineOperation, noContent, ok, type ResourceDecl } from '../http/operation.js';
import { badRequest } from '../http/api-error.js';
import { parseVariables } from '../http/variables.js';
import { BRIDGE_MODELS } from '../swagger/models/bridges.js';
import type { ParameterDecl } from '../swagger/types.js';
import { playbackLocation } from './playbacks.js';
import {
  RECORD_BAD_REQUEST,
  RECORD_EXISTS,
  RECORD_UNPROCESSABLE,
  liveRecordingLocation,
  recordOptions,
  recordParams,
} from './recording-params.js';

const bridgeId = {
  name: 'bridgeId',
  description: "Bridge's id",
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

const NOT_FOUND = { code: 404, reason: 'Bridge not found' } as const;
const NOT_IN_APP = { code: 409, reason: 'Bridge not in an application' } as const;

/** Formats the helper announcer may use: the engine mixes in linear audio and encodes per leg. */
const ANNOUNCER_FORMATS = ['slin', 'slin8', 'slin16', 'slin48', 'ulaw', 'alaw', 'g722'];

const controlled = (core: SwitchboardCore, id: string): Bridge => core.bridges.requireControlled(id);

/** The ids of an addChannel request: channels of this node, and those another node of a cluster owns. */
async function channelsByNode(
  core: SwitchboardCore,
  ids: readonly string[],
): Promise<{ here: string[]; elsewhere: { id: string; owner: ClusterNodeConfig }[] }> {
  const here: string[] = [];
  const elsewhere: { id: string; owner: ClusterNodeConfig }[] = [];
  for (const id of ids) {
    const owner =
      core.clusterMedia && !core.channels.get(id) ? await core.cluster?.ownerOf('channel', id).catch(() => undefined) : undefined;
    if (owner) elsewhere.push({ id, owner });
    else here.push(id);
  }
  return { here, elsewhere };
}

const createParams = [
  {
    name: 'type',
    description: 'Comma separated list of bridge type attributes (mixing, holding, dtmf_events, proxy_media, video_sfu, video_single)',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
  { name: 'name', description: 'Name to give to the bridge being created', paramType: 'query', dataType: 'string', required: false },
  {
    name: 'variables',
    description: 'The "variables" key in the body object holds variable key/value pairs to set on the bridge',
    paramType: 'body',
    dataType: 'containers',
    required: false,
  },
] as const satisfies readonly ParameterDecl[];

async function createBridge(core: SwitchboardCore, params: { bridgeId?: string; type?: string; name?: string; variables?: unknown }) {
  // Variables are checked before the bridge exists, so that a bad body creates nothing.
  const variables = parseVariables(params.variables);
  const bridge = await core.bridges.create({ id: params.bridgeId, type: params.type, name: params.name });
  for (const [name, assignment] of variables) bridge.variables.set(name, { value: assignment.value, report: assignment.reportEvents });
  return ok(bridge.snapshot());
}

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all active bridges.',
  responseClass: 'List[Bridge]',
  since: ['12.0.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.bridges.list().map((b) => b.snapshot())),
});

const create = defineOperation({
  httpMethod: 'POST',
  nickname: 'create',
  summary: 'Create a new bridge.',
  notes: 'This bridge persists until it has been shut down, or the server has been shut down.',
  responseClass: 'Bridge',
  since: ['12.0.0'],
  parameters: [
    createParams[0],
    {
      name: 'bridgeId',
      description: 'Unique ID to give to the bridge being created',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    createParams[1],
    createParams[2],
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid bridge type or id' },
    { code: 409, reason: 'Bridge with the same bridgeId already exists' },
  ],
  handler: ({ core, params }) => createBridge(core, params),
});

const createWithId = defineOperation({
  httpMethod: 'POST',
  nickname: 'createWithId',
  summary: 'Create a new bridge with the given id.',
  notes: 'This bridge persists until it has been shut down, or the server has been shut down.',
  responseClass: 'Bridge',
  since: ['12.2.0'],
  parameters: [createParams[0], bridgeId, createParams[1], createParams[2]],
  errorResponses: [
    { code: 400, reason: 'Invalid bridge type or id' },
    { code: 409, reason: 'Bridge with the same bridgeId already exists' },
  ],
  handler: ({ core, params }) => createBridge(core, params),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Get bridge details.',
  responseClass: 'Bridge',
  since: ['12.0.0'],
  parameters: [bridgeId],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params }) => ok(core.bridges.require(params.bridgeId).snapshot()),
});

const destroy = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'destroy',
  summary: 'Shut down a bridge.',
  notes: 'If any channels are in this bridge, they will be removed and resume whatever they were doing beforehand.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [bridgeId],
  errorResponses: [NOT_FOUND, NOT_IN_APP],
  handler: async ({ core, params }) => {
    await core.bridges.destroy(controlled(core, params.bridgeId));
    return noContent();
  },
});

const variableName = {
  name: 'variable',
  description: 'The bridge variable to get or set',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;

const getBridgeVar = defineOperation({
  httpMethod: 'GET',
  nickname: 'getBridgeVar',
  summary: 'Get the value of a bridge variable.',
  responseClass: 'Variable',
  since: ['22.10.0'],
  parameters: [bridgeId, variableName],
  errorResponses: [{ code: 400, reason: 'Missing variable parameter.' }, { code: 404, reason: 'Bridge or variable not found' }, NOT_IN_APP],
  handler: ({ core, params }) => {
    const variable = controlled(core, params.bridgeId).variables.get(params.variable);
    if (!variable) throw notFound('Provided variable was not found');
    return ok({ value: variable.value });
  },
});

const setBridgeVar = defineOperation({
  httpMethod: 'POST',
  nickname: 'setBridgeVar',
  summary: 'Set the value of a bridge variable.',
  responseClass: 'void',
  since: ['22.10.0'],
  parameters: [
    bridgeId,
    variableName,
    {
      name: 'value',
      description: 'The value to set the variable to; absent unsets it',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    {
      name: 'report_events',
      description: 'Show the variable in the bridgevars of every bridge snapshot',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
      defaultValue: false,
    },
  ],
  errorResponses: [{ code: 400, reason: 'Missing variable parameter.' }, NOT_FOUND, NOT_IN_APP],
  handler: ({ core, params }) => {
    const bridge = controlled(core, params.bridgeId);
    if (params.value === undefined) bridge.variables.delete(params.variable);
    else bridge.variables.set(params.variable, { value: params.value, report: params.report_events });
    return noContent();
  },
});

const getBridgeVars = defineOperation({
  httpMethod: 'GET',
  nickname: 'getBridgeVars',
  summary: 'Get the values of several bridge variables.',
  notes: 'One variable that is not set fails the whole request with 404.',
  responseClass: 'Variables',
  since: ['22.10.0'],
  parameters: [
    bridgeId,
    {
      name: 'variables',
      description: 'The bridge variables to read, comma-separated',
      paramType: 'query',
      dataType: 'string',
      required: true,
      allowMultiple: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Missing variables parameter, or an empty name' },
    { code: 404, reason: 'Bridge or variable not found' },
    NOT_IN_APP,
  ],
  handler: ({ core, params }) => {
    const bridge = controlled(core, params.bridgeId);
    const variables: Record<string, string> = {};
    for (const name of params.variables) {
      if (name.trim() === '') throw badRequest('Variable names must not be empty');
      const variable = bridge.variables.get(name);
      if (!variable) throw notFound(`Variable '${name}' was not found`);
      variables[name] = variable.value;
    }
    return ok({ variables });
  },
});

const setBridgeVars = defineOperation({
  httpMethod: 'POST',
  nickname: 'setBridgeVars',
  summary: 'Set the values of several bridge variables.',
  notes: 'Body {"variables": {"NAME": "value" | {"value": "v", "report_events": true}}}.',
  responseClass: 'void',
  since: ['22.10.0'],
  parameters: [
    bridgeId,
    {
      name: 'variables',
      description: 'The "variables" key in the body object holds the variables to set',
      paramType: 'body',
      dataType: 'containers',
      required: true,
    },
  ],
  errorResponses: [{ code: 400, reason: 'Missing or malformed variables' }, NOT_FOUND, NOT_IN_APP],
  handler: ({ core, params }) => {
    const bridge = controlled(core, params.bridgeId);
    // Every entry is checked before any is set.
    const variables = parseVariables(params.variables);
    for (const [name, assignment] of variables) bridge.variables.set(name, { value: assignment.value, report: assignment.reportEvents });
    return noContent();
  },
});

const channelList = {
  name: 'channel',
  description: 'Ids of channels; comma-separated',
  paramType: 'query',
  dataType: 'string',
  required: true,
  allowMultiple: true,
} as const satisfies ParameterDecl;

const addChannel = defineOperation({
  httpMethod: 'POST',
  nickname: 'addChannel',
  summary: 'Add a channel to a bridge.',
  notes:
    'A channel already in another bridge is moved. The role and flags apply to every channel of the request; ' +
    'roles are cleared each time a channel enters a bridge. An inbound channel that has not answered is answered.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    bridgeId,
    channelList,
    {
      name: 'role',
      description: "Channel's role in the bridge (e.g. announcer in a holding bridge)",
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    { name: 'roles', description: 'Same as role (the name SPEC §4.5 uses)', paramType: 'query', dataType: 'string', required: false },
    {
      name: 'absorbDTMF',
      description: 'Absorb DTMF coming from this channel, preventing it to pass through to the bridge',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
      defaultValue: false,
    },
    {
      name: 'mute',
      description: 'Mute audio from this channel, preventing it to pass through to the bridge',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
      defaultValue: false,
    },
    {
      name: 'inhibitConnectedLineUpdates',
      description: 'Do not present the identity of the newly connected channel to other bridge members',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
      defaultValue: false,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Channel not found' },
    NOT_FOUND,
    NOT_IN_APP,
    { code: 422, reason: 'Channel not in an application' },
  ],
  handler: async ({ core, params }) => {
    const bridge = controlled(core, params.bridgeId);
    const options = {
      role: params.role ?? params.roles,
      mute: params.mute,
      absorbDtmf: params.absorbDTMF,
      inhibitConnectedLineUpdates: params.inhibitConnectedLineUpdates,
    };
    const { here, elsewhere } = await channelsByNode(core, params.channel);
    if (here.length > 0 || elsewhere.length === 0) await core.bridges.addChannels(bridge, core.bridges.resolveChannelsToAdd(here), options);
    // Channels of other nodes join through a media leg between the nodes (core's cluster-media-legs.ts).
    for (const { id, owner } of elsewhere) await core.clusterMedia?.join(bridge, id, owner, options);
    return noContent();
  },
});

const removeChannel = defineOperation({
  httpMethod: 'POST',
  nickname: 'removeChannel',
  summary: 'Remove a channel from a bridge.',
  notes: 'The channels stay in their application.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [bridgeId, channelList],
  errorResponses: [{ code: 400, reason: 'Channel not found' }, NOT_FOUND, NOT_IN_APP, { code: 422, reason: 'Channel not in this bridge' }],
  handler: async ({ core, params }) => {
    const bridge = controlled(core, params.bridgeId);
    await core.bridges.removeChannels(bridge, core.bridges.resolveChannelsToRemove(bridge, params.channel));
    return noContent();
  },
});

const setVideoSource = defineOperation({
  httpMethod: 'POST',
  nickname: 'setVideoSource',
  summary: 'Set a channel as the video source in a multi-party mixing bridge.',
  notes: "The source's video is forwarded (not transcoded) to every other participant that negotiated the same codec.",
  responseClass: 'void',
  since: ['13.13.0', '14.2.0'],
  parameters: [bridgeId, { name: 'channelId', description: "Channel's id", paramType: 'path', dataType: 'string', required: true }],
  errorResponses: [
    { code: 400, reason: 'Channel not found' },
    NOT_FOUND,
    NOT_IN_APP,
    { code: 422, reason: 'Channel not in an application, or not in this bridge' },
  ],
  handler: async ({ core, params }) => {
    await core.bridges.setVideoSource(controlled(core, params.bridgeId), params.channelId);
    return noContent();
  },
});

const clearVideoSource = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'clearVideoSource',
  summary: 'Removes any explicit video source in a multi-party mixing bridge; video follows the talker again.',
  responseClass: 'void',
  since: ['13.13.0', '14.2.0'],
  parameters: [bridgeId],
  errorResponses: [NOT_FOUND, NOT_IN_APP],
  handler: async ({ core, params }) => {
    await core.bridges.clearVideoSource(controlled(core, params.bridgeId));
    return noContent();
  },
});

const startMoh = defineOperation({
  httpMethod: 'POST',
  nickname: 'startMoh',
  summary: 'Play music on hold to a bridge or change the music on hold class that is playing.',
  notes: 'Music on hold mutes no participant.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    bridgeId,
    { name: 'mohClass', description: 'Music on hold class (default when absent)', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: [NOT_FOUND, NOT_IN_APP],
  handler: async ({ core, params }) => {
    await core.bridges.startMusic(controlled(core, params.bridgeId), params.mohClass);
    return noContent();
  },
});

const stopMoh = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'stopMoh',
  summary: 'Stop playing music on hold to a bridge.',
  notes: 'This only stops music on hold started by startMoh.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [bridgeId],
  errorResponses: [NOT_FOUND, { code: 409, reason: "Bridge not in an application, or it isn't playing music" }],
  handler: async ({ core, params }) => {
    await core.bridges.stopMusic(controlled(core, params.bridgeId));
    return noContent();
  },
});

const mediaParams = [
  {
    name: 'media',
    description: 'Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order',
    paramType: 'query',
    dataType: 'string',
    required: true,
    allowMultiple: true,
  },
  { name: 'lang', description: 'For sounds, selects language for sound', paramType: 'query', dataType: 'string', required: false },
  {
    name: 'offsetms',
    description: 'Number of milliseconds to skip before playing; applies to the first URI only',
    paramType: 'query',
    dataType: 'int',
    required: false,
    allowableValues: { valueType: 'RANGE', min: 0 },
  },
  {
    name: 'skipms',
    description: 'Number of milliseconds to skip for forward/reverse operations',
    paramType: 'query',
    dataType: 'int',
    required: false,
    defaultValue: 3000,
    allowableValues: { valueType: 'RANGE', min: 0 },
  },
  {
    name: 'announcer_format',
    description:
      'Format of the announcer that plays into the bridge (slin, slin8, slin16, slin48, ulaw, alaw, g722); default slin at the highest participant sample rate',
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
] as const satisfies readonly ParameterDecl[];

const PLAY_ERRORS = [NOT_FOUND, NOT_IN_APP, { code: 422, reason: 'The format specified is unknown on this system' }];

function playOnBridge(
  core: SwitchboardCore,
  apiRoot: string,
  params: {
    bridgeId: string;
    media: string[];
    lang?: string;
    offsetms?: number;
    skipms: number;
    announcer_format?: string;
    playbackId?: string;
  },
) {
  const bridge = controlled(core, params.bridgeId);
  const announcerFormat = params.announcer_format;
  if (announcerFormat !== undefined && (!ANNOUNCER_FORMATS.includes(announcerFormat) || !isChannelFormat(announcerFormat))) {
    throw unprocessable(`Unknown announcer format '${announcerFormat}'`);
  }
  const playback = core.playbacks.playOnBridge(bridge, params.media, {
    ...(announcerFormat === undefined ? {} : { announcerFormat }),
    playbackId: params.playbackId,
    lang: params.lang,
    offsetMs: params.offsetms,
    skipMs: params.skipms,
    defaultLanguage: core.config.general.defaultLanguage,
  });
  return created(playbackLocation(apiRoot, playback.id), playback);
}

const play = defineOperation({
  httpMethod: 'POST',
  nickname: 'play',
  summary: 'Start playback of media on a bridge.',
  notes: 'The media plays to every participant, queued behind earlier plays on the bridge.',
  responseClass: 'Playback',
  since: ['12.0.0'],
  parameters: [
    bridgeId,
    ...mediaParams,
    { name: 'playbackId', description: 'Playback Id; generated when absent', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: PLAY_ERRORS,
  handler: ({ core, params, apiRoot }) => playOnBridge(core, apiRoot, params),
});

const playWithId = defineOperation({
  httpMethod: 'POST',
  nickname: 'playWithId',
  summary: 'Start playback of media on a bridge, with the given playback id.',
  notes: 'The media plays to every participant, queued behind earlier plays on the bridge.',
  responseClass: 'Playback',
  since: ['12.3.0'],
  parameters: [
    bridgeId,
    { name: 'playbackId', description: 'Playback ID', paramType: 'path', dataType: 'string', required: true },
    ...mediaParams,
  ],
  errorResponses: PLAY_ERRORS,
  handler: ({ core, params, apiRoot }) => playOnBridge(core, apiRoot, params),
});

const record = defineOperation({
  httpMethod: 'POST',
  nickname: 'record',
  summary: 'Start a recording.',
  notes: 'Records the mix of every participant of the bridge.',
  responseClass: 'LiveRecording',
  since: ['12.0.0'],
  parameters: [
    bridgeId,
    ...recordParams,
    {
      name: 'recorder_format',
      description:
        'Format of the recorder that listens to the bridge (a recording format, or slin, slin16, slin48, ulaw, alaw, g722); the same as format when absent',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
  ],
  errorResponses: [
    RECORD_BAD_REQUEST,
    NOT_FOUND,
    { code: 409, reason: 'Bridge not in an application; or a recording with the same name is in progress' },
    RECORD_UNPROCESSABLE,
    RECORD_EXISTS,
  ],
  handler: ({ core, params, apiRoot }) => {
    const bridge = controlled(core, params.bridgeId);
    if (params.recorder_format !== undefined && !isRecorderFormat(params.recorder_format, core.recordings.formats)) {
      throw unprocessable(`Unknown recorder format '${params.recorder_format}'`);
    }
    const options = recordOptions(params);
    if (params.recorder_format !== undefined) options.recorderFormat = params.recorder_format;
    const recording = core.recordings.record(bridgeRecordTarget(bridge), options);
    return created(liveRecordingLocation(apiRoot, recording.name), recording);
  },
});

export const bridgesResource: ResourceDecl = {
  name: 'bridges',
  description: 'Bridge resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/bridges', description: 'Active bridges', operations: [list, create] },
    { path: '/bridges/{bridgeId}', description: 'Individual bridge', operations: [createWithId, get, destroy] },
    { path: '/bridges/{bridgeId}/variable', description: 'Variables on a bridge', operations: [getBridgeVar, setBridgeVar] },
    { path: '/bridges/{bridgeId}/variables', description: 'Several variables on a bridge', operations: [getBridgeVars, setBridgeVars] },
    { path: '/bridges/{bridgeId}/addChannel', description: 'Add a channel to a bridge', operations: [addChannel] },
    { path: '/bridges/{bridgeId}/removeChannel', description: 'Remove a channel from a bridge', operations: [removeChannel] },
    {
      path: '/bridges/{bridgeId}/videoSource/{channelId}',
      description: 'Set a channel as the video source in a multi-party bridge',
      operations: [setVideoSource],
    },
    { path: '/bridges/{bridgeId}/videoSource', description: 'Removes any explicit video source', operations: [clearVideoSource] },
    { path: '/bridges/{bridgeId}/moh', description: 'Play music on hold to a bridge', operations: [startMoh, stopMoh] },
    { path: '/bridges/{bridgeId}/play', description: 'Play media to the participants of a bridge', operations: [play] },
    { path: '/bridges/{bridgeId}/play/{playbackId}', description: 'Play media to a bridge', operations: [playWithId] },
    { path: '/bridges/{bridgeId}/record', description: 'Record audio on a bridge', operations: [record] },
  ],
  models: BRIDGE_MODELS,
};
