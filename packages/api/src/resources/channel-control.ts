/** continue, move, redirect, ring, progress, hold and silence (reference channels.md): look up, check, hand to core. */
import { type Channel, type SwitchboardCore, splitAppArgs } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';
import { defineOperation, noContent } from '../http/operation.js';
import type { ParameterDecl } from '../swagger/types.js';
import { CONTROL_ERRORS, NOT_FOUND, NOT_IN_APP, appArgsParam, channelIdParam } from './channel-params.js';
import { answeredOrInboundChannel, controlledChannel } from './lookups.js';

export const continueInDialplan = defineOperation({
  httpMethod: 'POST',
  nickname: 'continueInDialplan',
  summary: 'Exit application; continue execution in the dialplan.',
  notes:
    'Without a target the channel continues at the next priority. A context without an extension means extension s; ' +
    'a label wins over a priority.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    channelIdParam,
    { name: 'context', description: 'The context to continue to', paramType: 'query', dataType: 'string', required: false },
    { name: 'extension', description: 'The extension to continue to', paramType: 'query', dataType: 'string', required: false },
    { name: 'priority', description: 'The priority to continue to', paramType: 'query', dataType: 'int', required: false },
    { name: 'label', description: 'The label to continue to; wins over priority', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid dialplan target' },
    { code: 404, reason: 'Channel or label not found' },
    NOT_IN_APP,
    CONTROL_ERRORS[2],
  ],
  handler: ({ core, params }) => {
    const channel = answeredOrInboundChannel(core, params.channelId);
    core.channelFlow.continueInDialplan(channel, params);
    return noContent();
  },
});

export const move = defineOperation({
  httpMethod: 'POST',
  nickname: 'move',
  summary: 'Move the channel from one application to another.',
  notes: 'When the destination application is not registered the channel stays and its application gets ApplicationMoveFailed.',
  responseClass: 'void',
  since: ['13.26.0', '16.3.0'],
  parameters: [
    channelIdParam,
    { name: 'app', description: 'The channel will be passed to this application', paramType: 'query', dataType: 'string', required: true },
    { ...appArgsParam, description: 'The application arguments to pass to the application provided by app' },
  ],
  errorResponses: [NOT_FOUND, NOT_IN_APP],
  handler: ({ core, params }) => {
    const channel = controlledChannel(core, params.channelId);
    core.channelFlow.move(channel, params.app, splitAppArgs(params.appArgs));
    return noContent();
  },
});

export const redirect = defineOperation({
  httpMethod: 'POST',
  nickname: 'redirect',
  summary: 'Redirect the channel to a different location.',
  notes: 'The target must be of the channel technology. A technology whose driver cannot redirect answers 501.',
  responseClass: 'void',
  since: ['13.3.0'],
  parameters: [
    channelIdParam,
    {
      name: 'endpoint',
      description: 'The endpoint to redirect the channel to, technology/resource',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Endpoint parameter not provided' },
    { code: 404, reason: 'Channel or endpoint not found' },
    NOT_IN_APP,
    CONTROL_ERRORS[2],
    { code: 422, reason: 'Endpoint is not the same type as the channel' },
    { code: 501, reason: 'The channel technology cannot redirect calls' },
  ],
  handler: async ({ core, params }) => {
    const channel = answeredOrInboundChannel(core, params.channelId);
    await core.channelFlow.redirect(channel, params.endpoint);
    return noContent();
  },
});

/** The operations whose only parameter is the channel id and whose work is one call into core. */
function simple(
  httpMethod: 'POST' | 'DELETE',
  nickname: string,
  summary: string,
  since: readonly string[],
  run: (core: SwitchboardCore, channel: Channel) => Promise<void>,
  notes?: string,
) {
  return defineOperation({
    httpMethod,
    nickname,
    summary,
    ...(notes === undefined ? {} : { notes }),
    responseClass: 'void',
    since,
    parameters: [channelIdParam] as const satisfies readonly ParameterDecl[],
    errorResponses: CONTROL_ERRORS,
    handler: async ({ core, params }) => {
      await run(core, answeredOrInboundChannel(core, params.channelId));
      return noContent();
    },
  });
}

export const ring = simple(
  'POST',
  'ring',
  'Indicate ringing to a channel.',
  ['12.0.0'],
  (core, c) => core.channelMedia.ring(c),
  'An unanswered channel gets a ringing indication; an answered one hears locally generated ringback.',
);
export const ringStop = simple('DELETE', 'ringStop', 'Stop ringing indication on a channel if locally generated.', ['12.0.0'], (core, c) =>
  core.channelMedia.ringStop(c),
);
export const progress = simple(
  'POST',
  'progress',
  'Indicate progress (early media) to a channel.',
  ['22.6.0', '21.11.0', '20.16.0'],
  (_core, c) => c.indicateProgress(),
);
export const hold = simple(
  'POST',
  'hold',
  'Hold a channel.',
  ['12.0.0'],
  (core, c) => core.channelMedia.hold(c),
  'What the channel sends is no longer passed on, and ChannelHold is raised.',
);
export const unhold = simple('DELETE', 'unhold', 'Remove a channel from hold.', ['12.0.0'], (core, c) => core.channelMedia.unhold(c));
export const stopMoh = simple('DELETE', 'stopMoh', 'Stop playing music on hold to a channel.', ['12.0.0'], (core, c) =>
  core.channelMedia.stopMoh(c),
);
export const startSilence = simple(
  'POST',
  'startSilence',
  'Play silence to a channel.',
  ['12.0.0'],
  (core, c) => core.channelMedia.startSilence(c),
  'A later media operation stops the silence without resuming it.',
);
export const stopSilence = simple('DELETE', 'stopSilence', 'Stop playing silence to a channel.', ['12.0.0'], (core, c) =>
  core.channelMedia.stopSilence(c),
);

export const TRANSFER_PROGRESS_STATES = ['channel_progress', 'channel_answered', 'channel_unavailable', 'channel_declined'] as const;

export const transferProgress = defineOperation({
  httpMethod: 'POST',
  nickname: 'transfer_progress',
  summary: 'Inform the channel about the progress of the attended/blind transfer.',
  notes: 'The channel technology tells the far end that asked for the transfer; one that cannot answers 501.',
  responseClass: 'void',
  since: ['22.3.0', '21.8.0', '20.13.0'],
  parameters: [
    channelIdParam,
    {
      name: 'states',
      description: 'The state of the progress: channel_progress, channel_answered, channel_unavailable or channel_declined',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'states missing or not a known state' },
    NOT_FOUND,
    NOT_IN_APP,
    CONTROL_ERRORS[2],
    { code: 501, reason: 'The channel technology cannot report transfer progress' },
  ],
  handler: async ({ core, params }) => {
    // The reference reads the state case-insensitively.
    const state = TRANSFER_PROGRESS_STATES.find((s) => s === params.states.toLowerCase());
    if (!state) throw badRequest(`states must be one of ${TRANSFER_PROGRESS_STATES.join(', ')}`);
    await answeredOrInboundChannel(core, params.channelId).transferProgress(state);
    return noContent();
  },
});
