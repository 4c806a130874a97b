/**
 * `POST /events/claim` (reference events.md `claimChannel`): the first application to claim a
 * broadcast channel wins it (it then enters that application); later claims get 409.
 */
import { defineOperation, noContent } from '../http/operation.js';

export const claimChannel = defineOperation({
  httpMethod: 'POST',
  nickname: 'claimChannel',
  summary: 'Claim a channel that was broadcast to several applications.',
  notes: 'The first claim wins and the channel enters the claiming application (AppStart); later claims are refused.',
  responseClass: 'void',
  since: ['20.17.0', '22.7.0', '23.1.0'],
  parameters: [
    { name: 'channelId', description: 'The id of the broadcast channel to claim', paramType: 'query', dataType: 'string', required: true },
    {
      name: 'application',
      description: 'The name of the application claiming the channel',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'A required parameter is missing' },
    { code: 404, reason: 'Channel not found or not being broadcast; or the application is not registered' },
    { code: 409, reason: 'Channel was already claimed by another application' },
  ],
  handler: ({ core, params }) => {
    core.broadcasts.claim(params.channelId, params.application);
    return noContent();
  },
});
