/**
 * The `channels` resource (reference channels.md): every channel operation. Each file next to this
 * one declares a group; this one holds the basic reads, hangup, answer and play, and the path table.
 */
import { HANGUP_REASON_NAMES, HANGUP_REASONS } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';
import { created, defineOperation, noContent, okJson, type ResourceDecl } from '../http/operation.js';
import { CHANNEL_MODELS } from '../swagger/models/channels.js';
import type { ParameterDecl } from '../swagger/types.js';
import { answeredOrInboundChannel, controlledChannel } from './lookups.js';
import { playbackLocation } from './playbacks.js';
import {
  continueInDialplan,
  hold,
  move,
  progress,
  redirect,
  ring,
  ringStop,
  startSilence,
  stopMoh,
  stopSilence,
  transferProgress,
  unhold,
} from './channel-control.js';
import { mute, rtpStatistics, sendDtmf, startMoh, unmute } from './channel-media.js';
import { create, dial, originate, originateWithId } from './channel-originate.js';
import { externalMedia } from './channel-external-media.js';
import { snoopChannel, snoopChannelWithId } from './channel-snoop.js';
import { getChannelVar, getChannelVars, setChannelVar, setChannelVars } from './channel-variables.js';
import { channelRecordApi } from './channel-recording.js';

const channelId = {
  name: 'channelId',
  description: "Channel's id",
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

const NOT_FOUND = { code: 404, reason: 'Channel not found' } as const;
const NOT_IN_APP = { code: 409, reason: 'Channel not in an application' } as const;
const NOT_ANSWERED = { code: 412, reason: 'Channel in invalid state' } as const;

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all active channels.',
  responseClass: 'List[Channel]',
  since: ['12.0.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core, dialect, snapshotJson }) =>
    okJson(
      snapshotJson.listBody(
        core.channels.list().map((c) => c.snapshot()),
        'Channel',
        dialect,
      ),
    ),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Channel details.',
  responseClass: 'Channel',
  since: ['12.0.0'],
  parameters: [channelId],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params, dialect, snapshotJson }) =>
    okJson(snapshotJson.body(core.channels.require(params.channelId).snapshot(), 'Channel', dialect)),
});

const hangup = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'hangup',
  summary: 'Delete (i.e. hangup) a channel.',
  notes: 'Works on any channel, inside an application or not. Without reason or reason_code the cause is normal clearing (16).',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    channelId,
    {
      name: 'reason_code',
      description: 'The Q.850 reason code for the hangup; cannot be combined with reason',
      paramType: 'query',
      dataType: 'int',
      required: false,
      allowableValues: { valueType: 'RANGE', min: 0, max: 127 },
    },
    {
      name: 'reason',
      description: 'Reason for hanging up the channel; cannot be combined with reason_code',
      paramType: 'query',
      dataType: 'string',
      required: false,
      allowableValues: { valueType: 'LIST', values: HANGUP_REASON_NAMES },
    },
  ],
  errorResponses: [{ code: 400, reason: 'Invalid reason for hangup provided' }, NOT_FOUND],
  handler: async ({ core, params }) => {
    if (params.reason !== undefined && params.reason_code !== undefined) {
      throw badRequest('The reason and reason_code parameters cannot both be given');
    }
    const channel = core.channels.require(params.channelId);
    const cause = params.reason_code ?? (params.reason === undefined ? undefined : HANGUP_REASONS[params.reason]);
    await channel.hangup(cause);
    return noContent();
  },
});

const answer = defineOperation({
  httpMethod: 'POST',
  nickname: 'answer',
  summary: 'Answer a channel.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [channelId],
  errorResponses: [NOT_FOUND, NOT_IN_APP, NOT_ANSWERED],
  handler: async ({ core, params }) => {
    await controlledChannel(core, params.channelId).answer();
    return noContent();
  },
});

const mediaParams = [
  {
    name: 'media',
    description:
      'Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order as one playback',
    paramType: 'query',
    dataType: 'string',
    required: true,
    allowMultiple: true,
  },
  {
    name: 'lang',
    description: "For sounds, selects language for sound; defaults to the channel's language",
    paramType: 'query',
    dataType: 'string',
    required: false,
  },
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
] as const satisfies readonly ParameterDecl[];

const PLAY_ERRORS = [NOT_FOUND, NOT_IN_APP, NOT_ANSWERED];

const play = defineOperation({
  httpMethod: 'POST',
  nickname: 'play',
  summary: 'Start playback of media.',
  notes: 'Playing media does not answer the channel: an unanswered channel gets early media instead.',
  responseClass: 'Playback',
  since: ['12.0.0'],
  parameters: [
    channelId,
    ...mediaParams,
    {
      name: 'playbackId',
      description: 'Playback ID; generated when absent',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
  ],
  errorResponses: PLAY_ERRORS,
  handler: ({ core, params, apiRoot }) => {
    const channel = answeredOrInboundChannel(core, params.channelId);
    const playback = core.playbacks.playOnChannel(channel, params.media, {
      playbackId: params.playbackId,
      lang: params.lang,
      offsetMs: params.offsetms,
      skipMs: params.skipms,
    });
    return created(playbackLocation(apiRoot, playback.id), playback);
  },
});

const playWithId = defineOperation({
  httpMethod: 'POST',
  nickname: 'playWithId',
  summary: 'Start playback of media and specify the playbackId.',
  notes: 'Playing media does not answer the channel: an unanswered channel gets early media instead.',
  responseClass: 'Playback',
  since: ['12.2.0'],
  parameters: [
    channelId,
    { name: 'playbackId', description: 'Playback ID', paramType: 'path', dataType: 'string', required: true },
    ...mediaParams,
  ],
  errorResponses: PLAY_ERRORS,
  handler: ({ core, params, apiRoot }) => {
    const channel = answeredOrInboundChannel(core, params.channelId);
    const playback = core.playbacks.playOnChannel(channel, params.media, {
      playbackId: params.playbackId,
      lang: params.lang,
      offsetMs: params.offsetms,
      skipMs: params.skipms,
    });
    return created(playbackLocation(apiRoot, playback.id), playback);
  },
});

export const channelsResource: ResourceDecl = {
  name: 'channels',
  description: 'Channel resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/channels', description: 'Active channels', operations: [list, originate] },
    { path: '/channels/create', description: 'Create a channel and place it in an application', operations: [create] },
    { path: '/channels/externalMedia', description: 'Create a channel to an external media source/sink', operations: [externalMedia] },
    { path: '/channels/{channelId}', description: 'Active channel', operations: [get, originateWithId, hangup] },
    {
      path: '/channels/{channelId}/continue',
      description: 'Exit application; continue execution in the dialplan',
      operations: [continueInDialplan],
    },
    { path: '/channels/{channelId}/move', description: 'Move the channel from one application to another', operations: [move] },
    {
      path: '/channels/{channelId}/redirect',
      description: 'Inform the channel that it should redirect itself to a different location',
      operations: [redirect],
    },
    { path: '/channels/{channelId}/answer', description: 'Answer a channel', operations: [answer] },
    { path: '/channels/{channelId}/ring', description: 'Send a ringing indication to a channel', operations: [ring, ringStop] },
    { path: '/channels/{channelId}/progress', description: 'Send a progress indication to a channel', operations: [progress] },
    { path: '/channels/{channelId}/dtmf', description: 'Send DTMF to a channel', operations: [sendDtmf] },
    { path: '/channels/{channelId}/mute', description: 'Mute a channel', operations: [mute, unmute] },
    { path: '/channels/{channelId}/hold', description: 'Put a channel on hold', operations: [hold, unhold] },
    { path: '/channels/{channelId}/moh', description: 'Play music on hold to a channel', operations: [startMoh, stopMoh] },
    { path: '/channels/{channelId}/silence', description: 'Play silence to a channel', operations: [startSilence, stopSilence] },
    { path: '/channels/{channelId}/play', description: 'Play media to a channel', operations: [play] },
    { path: '/channels/{channelId}/play/{playbackId}', description: 'Play media to a channel', operations: [playWithId] },
    channelRecordApi,
    { path: '/channels/{channelId}/variable', description: 'Variables on a channel', operations: [getChannelVar, setChannelVar] },
    {
      path: '/channels/{channelId}/variables',
      description: 'Several variables on a channel',
      operations: [getChannelVars, setChannelVars],
    },
    { path: '/channels/{channelId}/snoop', description: 'Snoop (spy/whisper) on a channel', operations: [snoopChannel] },
    { path: '/channels/{channelId}/snoop/{snoopId}', description: 'Snoop (spy/whisper) on a channel', operations: [snoopChannelWithId] },
    { path: '/channels/{channelId}/dial', description: 'Dial a channel', operations: [dial] },
    {
      path: '/channels/{channelId}/rtp_statistics',
      description: 'Get RTP statistics information for RTP on a channel',
      operations: [rtpStatistics],
    },
    {
      path: '/channels/{channelId}/transfer_progress',
      description: 'Inform the channel that the transfer is in progress',
      operations: [transferProgress],
    },
  ],
  models: CHANNEL_MODELS,
};
