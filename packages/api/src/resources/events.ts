/** The `events` resource: the WebSocket that delivers events to applications (SPEC §4.2, §6). */
import { MAX_APPLICATION_NAME_LENGTH } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';
import { defineOperation, defineWebSocketOperation, noContent, type ResourceDecl } from '../http/operation.js';
import { isPlainObject } from '../http/variables.js';
import { EventConnection } from '../events/event-connection.js';
import { parseResumePoints } from '../events/resume-points.js';
import { claimChannel } from './events-claim.js';
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
      name: 'resume',
      description:
        'The last sequence number seen (for every application, or application:sequence pairs, comma-separated): the events after it that are still kept are sent first, and an EventsLost event says what is no longer kept',
      paramType: 'query',
      dataType: 'string',
      required: false,
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
    {
      code: 400,
      reason:
        'MissingParams: a required parameter is missing, an application name is invalid, the subprotocol is not ari, or resume is malformed or ahead of the stream',
    },
    { code: 403, reason: 'A read-only user may not register applications' },
    { code: 426, reason: 'The request is not a WebSocket upgrade' },
  ],
  open: async ({ core, params, log, dialect }) => {
    for (const name of params.app) {
      if (name.length === 0 || name.length > MAX_APPLICATION_NAME_LENGTH) {
        throw badRequest(`Application names must be 1 to ${MAX_APPLICATION_NAME_LENGTH} characters`);
      }
    }
    const resume = parseResumePoints(params.resume, params.app);
    return EventConnection.open({
      core,
      applications: params.app,
      subscribeAll: params.subscribeAll ?? false,
      log,
      dialect,
      resume,
    });
  },
});

const userEvent = defineOperation({
  httpMethod: 'POST',
  nickname: 'userEvent',
  summary: 'Generate a user event.',
  notes:
    'Sent as ChannelUserevent to the application; the body variables and eventname make up its userevent object. Device states are not accepted as sources.',
  responseClass: 'void',
  since: ['12.3.0'],
  parameters: [
    { name: 'eventName', description: 'Event name', paramType: 'path', dataType: 'string', required: true },
    {
      name: 'application',
      description: 'The name of the application that will receive this event',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    {
      name: 'source',
      description: 'URI for event source (channel:{channelId}, bridge:{bridgeId}, endpoint:{tech}/{resource})',
      paramType: 'query',
      dataType: 'string',
      required: false,
      allowMultiple: true,
    },
    {
      name: 'variables',
      description: 'The "variables" key in the body object holds custom key/value pairs to add to the user event.',
      paramType: 'body',
      dataType: 'containers',
      required: false,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid event source URI or userevent data.' },
    { code: 404, reason: 'Application does not exist.' },
    { code: 422, reason: 'Event source not found.' },
  ],
  handler: ({ core, params }) => {
    const variables = params.variables ?? {};
    if (!isPlainObject(variables)) throw badRequest('variables must be a JSON object');
    core.userEvents.send(params.application, params.eventName, params.source ?? [], variables);
    return noContent();
  },
});

export const eventsResource: ResourceDecl = {
  name: 'events',
  description: 'WebSocket resource',
  swaggerVersion: '1.2',
  since: ['12.0.0'],
  apis: [
    { path: '/events', description: 'Events from the server to applications', operations: [eventWebsocket] },
    { path: '/events/user/{eventName}', description: 'User events for applications', operations: [userEvent] },
    { path: '/events/claim', description: 'Claim a broadcast channel', operations: [claimChannel] },
  ],
  models: EVENTS_RESOURCE_MODELS,
};
