/** The `events` resource: the WebSocket that delivers events to applications (SPEC §4.2, §6). */
import { MAX_APPLICATION_NAME_LENGTH } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';
import { defineWebSocketOperation, type ResourceDecl } from '../http/operation.js';
import { EventConnection } from '../events/event-connection.js';
import { EVENTS_RESOURCE_MODELS } from '../swagger/models/events.js';

const eventWebsocket = defineWebSocketOperation({
  httpMethod: 'GET',
  nickname: 'eventWebsocket',
  summary: 'WebSocket connection for events.',
  notes: 'Credentials are checked before the upgrade. Each event is one JSON text frame; every application gets its own copy.',
  responseClass: 'Message',
  since: ['12.0.0'],
  upgrade: 'websocket',
  websocketProtocol: 'ari',
  parameters: [
    {
      name: 'app',
      description: `Applications to subscribe to, comma-separated; each at most ${MAX_APPLICATION_NAME_LENGTH} characters`,
      paramType: 'query',
      dataType: 'string',
      required: true,
      allowMultiple: true,
    },
    {
      name: 'subscribeAll',
      description: 'Subscribe to all channels, bridges, endpoints and device states, not only those the applications control',
      paramType: 'query',
      dataType: 'boolean',
      required: false,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'MissingParams: a required parameter is missing, an application name is invalid, or the subprotocol is not ari' },
    { code: 426, reason: 'The request is not a WebSocket upgrade' },
  ],
  open: ({ core, params, log }) => {
    for (const name of params.app) {
      if (name.length === 0 || name.length > MAX_APPLICATION_NAME_LENGTH) {
        throw badRequest(`Application names must be 1 to ${MAX_APPLICATION_NAME_LENGTH} characters`);
      }
    }
    return new EventConnection({ core, applications: params.app, subscribeAll: params.subscribeAll ?? false, log });
  },
});

export const eventsResource: ResourceDecl = {
  name: 'events',
  description: 'WebSocket resource',
  swaggerVersion: '1.2',
  since: ['12.0.0'],
  apis: [{ path: '/events', description: 'Events from the server to applications', operations: [eventWebsocket] }],
  models: EVENTS_RESOURCE_MODELS,
};
