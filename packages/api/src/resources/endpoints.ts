/** The `endpoints` resource (SPEC §4.6, reference endpoints.md). `PJSIP` is accepted for `SIP`. */
import { type ApiResult, defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { parseVariables } from '../http/variables.js';
import { ENDPOINT_MODELS } from '../swagger/models/endpoints.js';

const tech = {
  name: 'tech',
  description: 'Technology of the endpoints (SIP; PJSIP is accepted)',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;
const resource = { name: 'resource', description: 'ID of the endpoint', paramType: 'path', dataType: 'string', required: true } as const;
const from = {
  name: 'from',
  description: 'The endpoint resource or technology specific identity to send this message from.',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;
const body = { name: 'body', description: 'The body of the message', paramType: 'query', dataType: 'string', required: false } as const;
const variables = {
  name: 'variables',
  description: 'The "variables" key in the body object holds technology specific key/value pairs to append to the message.',
  paramType: 'body',
  dataType: 'containers',
  required: false,
} as const;

const accepted = (): ApiResult => ({ status: 202 });

/** Text message variables are plain strings (SIP headers). */
function messageVariables(value: unknown): Record<string, string> {
  return Object.fromEntries([...parseVariables(value)].map(([name, assignment]) => [name, assignment.value]));
}

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
    { path: '/endpoints/{tech}', description: 'Endpoints of one technology', operations: [listByTech] },
    { path: '/endpoints/{tech}/{resource}', description: 'Single endpoint', operations: [get] },
    {
      path: '/endpoints/{tech}/{resource}/sendMessage',
      description: 'Send a message to some endpoint in a technology.',
      operations: [sendMessageToEndpoint],
    },
  ],
  models: ENDPOINT_MODELS,
};
