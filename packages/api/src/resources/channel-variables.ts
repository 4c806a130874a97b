/** Channel variables (reference channels.md getChannelVar … setChannelVars; SPEC §4.4 rule 2). */
import { defineOperation, noContent, ok } from '../http/operation.js';
import { badRequest } from '../http/api-error.js';
import { NOT_FOUND, NOT_IN_APP, channelIdParam, variableSettings } from './channel-params.js';
import { controlledChannel } from './lookups.js';

const variableParam = {
  name: 'variable',
  description: 'The channel variable or function to read or write (e.g. CALLERID(num))',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;

export const getChannelVar = defineOperation({
  httpMethod: 'GET',
  nickname: 'getChannelVar',
  summary: 'Get the value of a channel variable or function.',
  notes: 'Works on any channel, inside an application or not.',
  responseClass: 'Variable',
  since: ['12.0.0'],
  parameters: [channelIdParam, variableParam],
  errorResponses: [
    { code: 400, reason: 'Missing variable parameter, or a function that cannot be read' },
    { code: 404, reason: 'Channel or variable not found' },
    NOT_IN_APP,
  ],
  handler: ({ core, params }) => ok({ value: core.channelVariables.get(core.channels.require(params.channelId), params.variable) }),
});

export const setChannelVar = defineOperation({
  httpMethod: 'POST',
  nickname: 'setChannelVar',
  summary: 'Set the value of a channel variable or function.',
  notes: 'Without a value the variable is removed. TALK_DETECT(set)=[silence ms[,level]] and TALK_DETECT(remove) control talk detection.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    channelIdParam,
    variableParam,
    { name: 'value', description: 'The value to set the variable to', paramType: 'query', dataType: 'string', required: false },
    {
      name: 'report_events',
      description: 'Show the variable in the channelvars of every later event of the channel',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
      defaultValue: false,
    },
  ],
  errorResponses: [{ code: 400, reason: 'Missing variable parameter, or a function that cannot be written' }, NOT_FOUND, NOT_IN_APP],
  handler: async ({ core, params }) => {
    const channel = controlledChannel(core, params.channelId);
    await core.channelVariables.set(channel, { name: params.variable, value: params.value, reportEvents: params.report_events });
    return noContent();
  },
});

export const getChannelVars = defineOperation({
  httpMethod: 'GET',
  nickname: 'getChannelVars',
  summary: 'Get the values of several channel variables or functions.',
  notes: 'One variable that is not set fails the whole request with 404.',
  responseClass: 'Variables',
  since: ['20.20.0', '22.10.0', '23.4.0'],
  parameters: [
    channelIdParam,
    {
      name: 'variables',
      description: 'The channel variables or functions to read, comma-separated',
      paramType: 'query',
      dataType: 'string',
      required: true,
      allowMultiple: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Missing variables parameter, or an empty name' },
    { code: 404, reason: 'Channel or variable not found' },
    NOT_IN_APP,
  ],
  handler: ({ core, params }) => {
    const channel = core.channels.require(params.channelId);
    const variables: Record<string, string> = {};
    for (const name of params.variables) {
      if (name.trim() === '') throw badRequest('Variable names must not be empty');
      variables[name] = core.channelVariables.get(channel, name);
    }
    return ok({ variables });
  },
});

export const setChannelVars = defineOperation({
  httpMethod: 'POST',
  nickname: 'setChannelVars',
  summary: 'Set the values of several channel variables or functions.',
  notes: 'Body {"variables": {"NAME": "value" | {"value": "v", "report_events": true}}}.',
  responseClass: 'void',
  since: ['20.20.0', '22.10.0', '23.4.0'],
  parameters: [
    channelIdParam,
    {
      name: 'variables',
      description: 'The "variables" key in the body object holds the variable key/value pairs to set',
      paramType: 'body',
      dataType: 'containers',
      required: true,
    },
  ],
  errorResponses: [{ code: 400, reason: 'Missing or malformed variables' }, NOT_FOUND, NOT_IN_APP],
  handler: async ({ core, params }) => {
    const channel = controlledChannel(core, params.channelId);
    const settings = variableSettings(params.variables);
    if (settings.length === 0) throw badRequest('variables must name at least one variable');
    for (const setting of settings) await core.channelVariables.set(channel, setting);
    return noContent();
  },
});
