/** Log channels of the `system` resource (SPEC §4.3, reference system.md; errors per [7-a]). */
import { CoreError, type LogChannelRegistry, type SwitchboardCore } from '@switchboard/core';
import { type ApiDecl, defineOperation, noContent, ok } from '../http/operation.js';

const logChannelName = {
  name: 'logChannelName',
  description: 'Log channel name: a file name in the log directory, or console',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;

function logChannels(core: SwitchboardCore): LogChannelRegistry {
  if (!core.logChannels) throw new CoreError('unavailable', 'Logging to channels is not configured');
  return core.logChannels;
}

const listLogChannels = defineOperation({
  httpMethod: 'GET',
  nickname: 'listLogChannels',
  summary: 'Gets log channels.',
  responseClass: 'List[LogChannel]',
  since: ['13.6.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.logChannels?.list() ?? []),
});

const addLog = defineOperation({
  httpMethod: 'POST',
  nickname: 'addLog',
  summary: 'Adds a log channel.',
  responseClass: 'void',
  since: ['13.6.0'],
  parameters: [
    logChannelName,
    {
      name: 'configuration',
      description: 'levels of the log channel (debug, verbose, notice, warning, error, dtmf, fax, security or *)',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Bad request body, or invalid log channel name or levels' },
    { code: 409, reason: 'Log channel could not be created.' },
    { code: 503, reason: 'The server has no log directory' },
  ],
  handler: ({ core, params }) => {
    logChannels(core).add(params.logChannelName, params.configuration);
    return noContent();
  },
});

const deleteLog = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'deleteLog',
  summary: 'Deletes a log channel.',
  responseClass: 'void',
  since: ['13.6.0'],
  parameters: [logChannelName],
  errorResponses: [
    { code: 404, reason: 'Log channel does not exist.' },
    { code: 503, reason: 'The server has no log directory' },
  ],
  handler: ({ core, params }) => {
    logChannels(core).delete(params.logChannelName);
    return noContent();
  },
});

const rotateLog = defineOperation({
  httpMethod: 'PUT',
  nickname: 'rotateLog',
  summary: 'Rotates a log channel.',
  responseClass: 'void',
  since: ['13.6.0'],
  parameters: [logChannelName],
  errorResponses: [
    { code: 404, reason: 'Log channel does not exist.' },
    { code: 503, reason: 'The server has no log directory' },
  ],
  handler: ({ core, params }) => {
    logChannels(core).rotate(params.logChannelName);
    return noContent();
  },
});

export const LOGGING_APIS: readonly ApiDecl[] = [
  { path: '/system/logging', description: 'Log channels', operations: [listLogChannels] },
  { path: '/system/logging/{logChannelName}', description: 'Log channel', operations: [addLog, deleteLog] },
  { path: '/system/logging/{logChannelName}/rotate', description: 'Log channel rotation', operations: [rotateLog] },
];
