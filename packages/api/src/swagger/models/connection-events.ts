/**
 * Events that belong to one events connection rather than to core's object model: answers to
 * REST-over-WebSocket requests, the registration notices of outbound connections, and the notice
 * that a resumed stream has a gap. They are declared like every other event so that clients that
 * look each event's model up by its `type` (ari-client) keep working.
 */
import type { ModelDecl } from '../types.js';

export const RestResponseModel: ModelDecl = {
  id: 'RESTResponse',
  description: 'The answer to a RESTRequest sent on the events WebSocket.',
  properties: {
    transaction_id: { type: 'string', description: "The request's transaction_id (empty when it had none)", required: true },
    request_id: { type: 'string', description: "The request's request_id (empty when it had none)", required: true },
    status_code: { type: 'int', description: 'The HTTP status of the answer', required: true },
    reason_phrase: { type: 'string', description: 'The reason phrase of that status', required: true },
    uri: { type: 'string', description: 'The URI of the request, without its query string', required: true },
    content_type: { type: 'string', description: 'application/json when there is a body', required: false },
    message_body: { type: 'string', description: 'The body of the answer, as a JSON string', required: false },
  },
};

export const RestHeaderModel: ModelDecl = {
  id: 'RESTHeader',
  description: 'A header of a REST-over-WebSocket request.',
  properties: {
    name: { type: 'string', description: 'Header name', required: true },
    value: { type: 'string', description: 'Header value', required: true },
  },
};

export const RestQueryStringParameterModel: ModelDecl = {
  id: 'RESTQueryStringParameter',
  description: 'A query string parameter of a REST-over-WebSocket request.',
  properties: {
    name: { type: 'string', description: 'Parameter name', required: true },
    value: { type: 'string', description: 'Parameter value', required: true },
  },
};

export const RestRequestModel: ModelDecl = {
  id: 'RESTRequest',
  description: 'A request sent by the application on the events WebSocket; answered with a RESTResponse event.',
  properties: {
    type: { type: 'string', description: 'Always RESTRequest', required: true },
    transaction_id: { type: 'string', description: 'Echoed in the answer', required: false },
    request_id: { type: 'string', description: 'Echoed in the answer', required: false },
    method: { type: 'string', description: 'The HTTP method', required: true },
    uri: { type: 'string', description: 'The path below /ari, without a leading slash; may carry a query string', required: true },
    content_type: {
      type: 'string',
      description: 'application/json or application/x-www-form-urlencoded; required with message_body',
      required: false,
    },
    query_strings: { type: 'List[RESTQueryStringParameter]', description: 'More query parameters', required: false },
    message_body: { type: 'string', description: 'The request body', required: false },
  },
};

export const ApplicationRegisteredModel: ModelDecl = {
  id: 'ApplicationRegistered',
  description: 'An application was registered on an outbound WebSocket connection.',
  properties: {},
};

export const ApplicationUnregisteredModel: ModelDecl = {
  id: 'ApplicationUnregistered',
  description: 'An application was unregistered from an outbound WebSocket connection.',
  properties: {},
};

export const EventsLostModel: ModelDecl = {
  id: 'EventsLost',
  description:
    'First message of a resumed connection (?resume=) when some of the events it asked for are no longer kept. It carries no sequence number of its own.',
  properties: {
    first_lost_sequence: { type: 'long', description: 'The first sequence number that cannot be replayed', required: true },
    last_lost_sequence: {
      type: 'long',
      description: 'The last sequence number that cannot be replayed; absent when the extent is unknown',
      required: false,
    },
    reason: { type: 'string', description: 'Why the events are no longer kept', required: true },
  },
};

/** Event models sent by connections (subtypes of Event). */
export const CONNECTION_EVENT_MODELS: readonly ModelDecl[] = [
  RestResponseModel,
  ApplicationRegisteredModel,
  ApplicationUnregisteredModel,
  EventsLostModel,
];

/** Every model of this file (published in events.json). */
export const CONNECTION_MODELS: readonly ModelDecl[] = [
  ...CONNECTION_EVENT_MODELS,
  RestHeaderModel,
  RestQueryStringParameterModel,
  RestRequestModel,
];
