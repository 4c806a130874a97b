/** The `endpoints` resource (SPEC §4.6, reference endpoints.md). `PJSIP` is accepted for `SIP`. */
import { defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { ENDPOINT_MODELS } from '../swagger/models/endpoints.js';
import { accepted, body, from, messageVariables, resource, tech, variables } from './endpoint-params.js';
import { referToEndpoint, referToUri } from './endpoint-refer.js';

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all endpoints.',
  responseClass: 'List[Endpoint]',
  since: ['12.0.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.endpoints.list()),
});

const sendMessage = defineOperation({
  httpMethod: 'PUT',
  nickname: 'sendMessage',
  summary: 'Send a message to some technology URI or endpoint.',
  responseClass: 'void',
  since: ['13.0.0'],
  parameters: [
    {
      name: 'to',
      description: 'The endpoint resource or technology specific URI to send the message to. Valid resources are sip, pjsip.',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    from,
    body,
    variables,
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters for sending a message.' },
    { code: 404, reason: 'Endpoint not found' },
  ],
  handler: async ({ core, params }) => {
    await core.textMessages.send({
      to: params.to,
      from: params.from,
      body: params.body ?? '',
      variables: messageVariables(params.variables),
    });
    return accepted();
  },
});

const listByTech = defineOperation({
  httpMethod: 'GET',
  nickname: 'listByTech',
  summary: 'List available endpoints for a given endpoint technology.',
  responseClass: 'List[Endpoint]',
  since: ['12.0.0'],
  parameters: [tech],
  errorResponses: [{ code: 404, reason: 'Endpoints not found' }],
  handler: ({ core, params }) => ok(core.endpoints.listByTechnology(params.tech)),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Details for an endpoint.',
  responseClass: 'Endpoint',
  since: ['12.0.0'],
  parameters: [tech, resource],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters for sending a message.' },
    { code: 404, reason: 'Endpoints not found' },
  ],
  handler: ({ core, params }) => ok(core.endpoints.require(params.tech, params.resource)),
});

const sendMessageToEndpoint = defineOperation({
  httpMethod: 'PUT',
  nickname: 'sendMessageToEndpoint',
  summary: 'Send a message to some endpoint in a technology.',
  responseClass: 'void',
  since: ['13.0.0'],
  parameters: [tech, resource, from, body, variables],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters for sending a message.' },
    { code: 404, reason: 'Endpoint not found' },
  ],
  handler: async ({ core, params }) => {
    core.endpoints.require(params.tech, params.resource);
    const to = `${params.tech.toLowerCase()}:${params.resource}`;
    await core.textMessages.send({ to, from: params.from, body: params.body ?? '', variables: messageVariables(params.variables) });
    return accepted();
  },
});

export const endpointsResource: ResourceDecl = {
  name: 'endpoints',
  description: 'Endpoint resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/endpoints', description: 'Endpoints', operations: [list] },
    { path: '/endpoints/sendMessage', description: 'Send a message to some technology URI or endpoint.', operations: [sendMessage] },
    {
      path: '/endpoints/refer',
      description: 'Refer an endpoint or technology URI to some technology URI or endpoint.',
      operations: [referToUri],
    },
    { path: '/endpoints/{tech}', description: 'Endpoints of one technology', operations: [listByTech] },
    { path: '/endpoints/{tech}/{resource}', description: 'Single endpoint', operations: [get] },
    {
      path: '/endpoints/{tech}/{resource}/sendMessage',
      description: 'Send a message to some endpoint in a technology.',
      operations: [sendMessageToEndpoint],
    },
    {
      path: '/endpoints/{tech}/{resource}/refer',
      description: 'Refer an endpoint in a technology to some technology URI or endpoint.',
      operations: [referToEndpoint],
    },
  ],
  models: ENDPOINT_MODELS,
};
