/** Models of endpoints.json (reference endpoints.md). */
import type { EndpointSnapshot, EndpointState, TextMessageSnapshot } from '@switchboard/core';
import { type ModelFor, listOfAll } from '../types.js';

export const EndpointModel = {
  id: 'Endpoint',
  description: 'An external device that may offer/accept calls to/from the server. Identified by technology and resource.',
  properties: {
    technology: { type: 'string', description: 'Technology of the endpoint', required: true },
    resource: { type: 'string', description: 'Identifier of the endpoint, specific to the given technology.', required: true },
    state: {
      type: 'string',
      description: 'Endpoint state.',
      required: false,
      allowableValues: listOfAll<EndpointState>()(['unknown', 'offline', 'online']),
    },
    channel_ids: { type: 'List[string]', description: 'Id of channels associated with this endpoint', required: true },
  },
} as const satisfies ModelFor<EndpointSnapshot>;

export const TextMessageModel = {
  id: 'TextMessage',
  description: 'A text message.',
  properties: {
    from: { type: 'string', description: 'A technology specific URI specifying the source of the message.', required: true },
    to: { type: 'string', description: 'A technology specific URI specifying the destination of the message.', required: true },
    body: { type: 'string', description: 'The text of the message.', required: true },
    variables: {
      type: 'object',
      description: 'Technology specific key/value pairs (JSON object) associated with the message.',
      required: false,
    },
  },
} as const satisfies ModelFor<TextMessageSnapshot>;

export const ENDPOINT_MODELS = [EndpointModel, TextMessageModel];
