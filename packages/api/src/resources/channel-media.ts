/** Music on hold, DTMF, mute and RTP statistics of a channel (reference channels.md). */
import { DEFAULT_DTMF_TIMING } from '@switchboard/core';
import { defineOperation, noContent, ok } from '../http/operation.js';
import type { ParameterDecl } from '../swagger/types.js';
import { CONTROL_ERRORS, channelIdParam } from './channel-params.js';
import { answeredOrInboundChannel } from './lookups.js';

export const startMoh = defineOperation({
  httpMethod: 'POST',
  nickname: 'startMoh',
  summary: 'Play music on hold to a channel.',
  notes: 'A later media operation (such as play) stops the music without resuming it.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    channelIdParam,
    { name: 'mohClass', description: 'Music on hold class to use', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: CONTROL_ERRORS,
  handler: async ({ core, params }) => {
    await core.channelMedia.startMoh(answeredOrInboundChannel(core, params.channelId), params.mohClass);
    return noContent();
  },
});

const msParam = (name: string, description: string, defaultValue: number) =>
  ({
    name,
    description,
    paramType: 'query',
    dataType: 'int',
    required: false,
    defaultValue,
    allowableValues: { valueType: 'RANGE', min: 0 },
  }) as const satisfies ParameterDecl;

export const sendDtmf = defineOperation({
  httpMethod: 'POST',
  nickname: 'sendDTMF',
  summary: 'Send provided DTMF to a given channel.',
  notes: 'Digits 0-9, A-D, * and #; a comma is a 500 ms pause. The request returns at once; the digits are sent in order after it.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    channelIdParam,
    { name: 'dtmf', description: 'DTMF To send', paramType: 'query', dataType: 'string', required: false },
    msParam('before', 'Amount of time to wait before DTMF digits (specified in milliseconds) start', DEFAULT_DTMF_TIMING.beforeMs),
    msParam('between', 'Amount of time in between DTMF digits (specified in milliseconds)', DEFAULT_DTMF_TIMING.betweenMs),
    msParam('duration', 'Length of each DTMF digit (specified in milliseconds)', DEFAULT_DTMF_TIMING.durationMs),
    msParam('after', 'Amount of time to wait after DTMF digits (specified in milliseconds) end', DEFAULT_DTMF_TIMING.afterMs),
  ],
  errorResponses: [{ code: 400, reason: 'DTMF is required, or holds an invalid digit' }, ...CONTROL_ERRORS],
  handler: ({ core, params, log }) => {
    const channel = answeredOrInboundChannel(core, params.channelId);
    const sending = core.channelMedia.sendDtmf(channel, params.dtmf, {
      beforeMs: params.before,
      betweenMs: params.between,
      durationMs: params.duration,
      afterMs: params.after,
    });
    // The reference queues the digits and answers at once; a hangup midway only ends the sending.
    sending.catch((err: unknown) => {
      if (!channel.isDestroyed) log.warn({ err, channel: channel.name }, 'sending DTMF failed');
    });
    return noContent();
  },
});

const directionParam = {
  name: 'direction',
  description: 'Direction in which to mute audio: in = from the channel, out = towards it',
  paramType: 'query',
  dataType: 'string',
  required: false,
  defaultValue: 'both',
  allowableValues: { valueType: 'LIST', values: ['both', 'in', 'out'] },
} as const satisfies ParameterDecl;

export const mute = defineOperation({
  httpMethod: 'POST',
  nickname: 'mute',
  summary: 'Mute a channel.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [channelIdParam, directionParam],
  errorResponses: CONTROL_ERRORS,
  handler: async ({ core, params }) => {
    await core.channelMedia.mute(answeredOrInboundChannel(core, params.channelId), params.direction);
    return noContent();
  },
});

export const unmute = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'unmute',
  summary: 'Unmute a channel.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [channelIdParam, { ...directionParam, description: 'Direction in which to unmute audio' }],
  errorResponses: CONTROL_ERRORS,
  handler: async ({ core, params }) => {
    await core.channelMedia.unmute(answeredOrInboundChannel(core, params.channelId), params.direction);
    return noContent();
  },
});

export const rtpStatistics = defineOperation({
  httpMethod: 'GET',
  nickname: 'rtpstatistics',
  summary: 'RTP stats on a channel.',
  notes: 'Works on any channel with an RTP session, inside an application or not.',
  responseClass: 'RTPstat',
  since: ['13.27.0', '16.4.0'],
  parameters: [channelIdParam],
  errorResponses: [{ code: 404, reason: 'Channel cannot be found, or it has no RTP session' }],
  handler: async ({ core, params }) => ok(await core.channelMedia.rtpStatistics(core.channels.require(params.channelId))),
});
